import { Counter, Gauge, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { parseSamples } from './prometheus-text.js';

describe('parseSamples', () => {
  it('reads what prom-client writes, escaped label values included, and only the metrics asked for', async () => {
    const registry = new Registry();
    const hits = new Counter({
      name: 'hits',
      help: 'h',
      labelNames: ['domain', 'descriptor'],
      registers: [registry],
    });
    new Gauge({ name: 'hits_other', help: 'not asked for', registers: [registry] }).set(7);
    hits.inc({ domain: 'web', descriptor: 'path_/a' }, 3);
    hits.inc({ domain: 'web', descriptor: 'user_bob"x\\y\nz' }, 2);
    hits.inc({ domain: 'a,b', descriptor: 'k_{v}=1' }, 1.5);
    const text = await registry.metrics();
    expect(parseSamples(text, new Set(['hits']))).toEqual([
      { name: 'hits', labels: { domain: 'web', descriptor: 'path_/a' }, value: 3 },
      { name: 'hits', labels: { domain: 'web', descriptor: 'user_bob"x\\y\nz' }, value: 2 },
      { name: 'hits', labels: { domain: 'a,b', descriptor: 'k_{v}=1' }, value: 1.5 },
    ]);
  });

  it('reads samples without labels, with a timestamp, and the special values', () => {
    const text = [
      '# HELP up whether',
      '# TYPE up gauge',
      'up 1 1700000000000',
      'start 1.7e9',
      'big{le="+Inf"} +Inf',
      'nan NaN',
      '',
    ].join('\n');
    expect(parseSamples(text, new Set(['up', 'start', 'big', 'nan']))).toEqual([
      { name: 'up', labels: {}, value: 1 },
      { name: 'start', labels: {}, value: 1.7e9 },
      { name: 'big', labels: { le: '+Inf' }, value: Infinity },
      { name: 'nan', labels: {}, value: NaN },
    ]);
  });

  it('throws on a broken sample line of a wanted metric, naming the line, and skips the others', () => {
    const text = 'other{broken 1\nhits{domain="web" 1\n';
    expect(() => parseSamples(text, new Set(['hits']))).toThrow('line 2: not a sample: hits{domain="web" 1');
    expect(() => parseSamples('hits{a="\\q"} 1', new Set(['hits']))).toThrow('line 1');
    expect(() => parseSamples('hits one', new Set(['hits']))).toThrow('line 1');
    expect(parseSamples(text, new Set(['absent']))).toEqual([]);
  });
});
