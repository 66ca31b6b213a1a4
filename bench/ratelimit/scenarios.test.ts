import { describe, expect, it } from 'vitest';
import { CALLS_IN_FLIGHT, listScenarios, scenarioName, selectScenarios, serversOf } from './scenarios.js';

const names = (scenarios: ReadonlyArray<{ name: string }>): string[] => scenarios.map((s) => s.name);

describe('scenarioName', () => {
  it('names the protocol, what is sent, who answers on which backend, then the variants', () => {
    expect(scenarioName('grpc', 'ours')).toBe('gRPC, ours + Redis');
    expect(scenarioName('http', 'ours, 2 workers, pipeline window')).toBe(
      'HTTP POST /json, ours + Redis, 2 workers, pipeline window 1ms',
    );
    expect(scenarioName('grpc', 'upstream, local cache', { sends: 'hot over-limit key' })).toBe(
      'gRPC hot over-limit key, upstream + Redis, local cache',
    );
    expect(scenarioName('grpc', 'ours, memcached', { variant: ['5 descriptors'] })).toBe(
      'gRPC, ours + memcached, 5 descriptors',
    );
    expect(scenarioName('grpc', 'ceiling')).toBe('gRPC, empty grpc-js (ceiling)');
  });
});

describe('listScenarios', () => {
  const all = listScenarios();
  const byName = new Map(all.map((s) => [s.name, s]));

  it('names each scenario once', () => {
    expect(new Set(names(all)).size).toBe(all.length);
  });

  it('compares each row with a ceiling and an upstream row measured before it', () => {
    for (const [i, s] of all.entries()) {
      for (const other of [s.ceiling, s.reference]) {
        if (other === undefined) continue;
        expect(names(all.slice(0, i)), `${s.name} → ${other}`).toContain(other);
      }
      if (s.reference !== undefined) expect(byName.get(s.reference)?.server).toMatch(/^upstream/);
    }
  });

  it('runs ours against upstream with pipelining off and on, with 2 workers and on the hot key', () => {
    const ours = all.filter((s) => s.reference !== undefined && s.tables.includes('main')).map((s) => s.name);
    expect(ours).toEqual([
      'gRPC, ours + Redis',
      'gRPC, ours + Redis, 2 workers',
      'gRPC, ours + Redis, pipeline window 1ms',
      'gRPC, ours + Redis, 2 workers, pipeline window 1ms',
      'gRPC hot over-limit key, ours + Redis',
      'gRPC hot over-limit key, ours + Redis, local cache',
      'HTTP POST /json, ours + Redis',
      'HTTP POST /json, ours + Redis, 2 workers',
      'HTTP POST /json, ours + Redis, pipeline window 1ms',
      'HTTP POST /json, ours + Redis, 2 workers, pipeline window 1ms',
    ]);
  });

  it('scales descriptors and connections for both, with as many calls in flight, and no ceiling', () => {
    const scale = all.filter((s) => s.tables.includes('scale'));
    const pairs = (variant: string): string[] => [
      `gRPC, upstream + Redis, ${variant}`,
      `gRPC, ours + Redis, ${variant}`,
    ];
    expect(names(scale)).toEqual([
      'gRPC, upstream + Redis',
      'gRPC, ours + Redis',
      ...pairs('5 descriptors'),
      ...pairs('10 descriptors'),
      ...pairs('1 connection × 64 streams'),
      ...pairs('8 connections × 8 streams'),
      ...pairs('64 connections × 1 stream'),
    ]);
    for (const s of scale) {
      if (s.load.protocol !== 'grpc') throw new Error(`${s.name}: not gRPC`);
      expect(s.load.shape.connections * s.load.shape.streamsPerConnection).toBe(CALLS_IN_FLIGHT);
      if (!s.tables.includes('main')) expect(s.ceiling).toBeUndefined();
    }
    const tenDescriptors = byName.get('gRPC, ours + Redis, 10 descriptors');
    expect(
      tenDescriptors?.load.protocol === 'grpc' && tenDescriptors.load.workload.request.descriptors,
    ).toHaveLength(10);
  });
});

describe('selectScenarios', () => {
  const all = listScenarios();

  it('keeps every scenario when nothing is picked', () => {
    expect(selectScenarios(all, undefined)).toEqual(all);
  });

  it('picks a whole name alone, with its ceiling and upstream row', () => {
    expect(names(selectScenarios(all, 'gRPC, ours + Redis, pipeline window 1ms'))).toEqual([
      'gRPC, empty grpc-js (ceiling)',
      'gRPC, upstream + Redis, pipeline window 1ms',
      'gRPC, ours + Redis, pipeline window 1ms',
    ]);
  });

  it('picks every name holding a part, in the order of the run', () => {
    expect(names(selectScenarios(all, 'local cache'))).toEqual([
      'gRPC, empty grpc-js (ceiling)',
      'gRPC hot over-limit key, upstream + Redis, local cache',
      'gRPC hot over-limit key, ours + Redis, local cache',
    ]);
  });

  it('picks nothing when no name holds it', () => {
    expect(selectScenarios(all, 'no such row')).toEqual([]);
  });

  it('starts each server the picked scenarios need, once', () => {
    expect(serversOf(selectScenarios(all, 'descriptors'))).toEqual(['upstream', 'ours']);
  });
});
