import { describe, expect, it } from 'vitest';
import {
  CALLS_IN_FLIGHT,
  SERVERS,
  listScenarios,
  scenarioName,
  selectScenarios,
  serversOf,
  type Scenario,
  type ServerSpec,
} from './scenarios.js';

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

  it('runs ours in 1 and 2 workers against upstream, with pipelining off and on and on the hot key', () => {
    const ours = all.filter((s) => s.reference !== undefined && s.tables.includes('main')).map((s) => s.name);
    expect(ours).toEqual([
      'gRPC, ours + Redis',
      'gRPC, ours + Redis, 2 workers',
      'gRPC, ours + Redis, pipeline window 1ms',
      'gRPC, ours + Redis, 2 workers, pipeline window 1ms',
      'gRPC hot over-limit key, ours + Redis',
      'gRPC hot over-limit key, ours + Redis, 2 workers',
      'gRPC hot over-limit key, ours + Redis, local cache',
      'gRPC hot over-limit key, ours + Redis, 2 workers, local cache',
      'HTTP POST /json, ours + Redis',
      'HTTP POST /json, ours + Redis, 2 workers',
      'HTTP POST /json, ours + Redis, pipeline window 1ms',
      'HTTP POST /json, ours + Redis, 2 workers, pipeline window 1ms',
    ]);
  });

  it('runs each row of ours compared with upstream in 1 and in 2 workers, against the same upstream row', () => {
    const compared = all.filter((s) => s.reference !== undefined);
    const twoWorkers = compared.filter((s) => s.name.includes(', 2 workers'));
    expect(twoWorkers.length * 2).toBe(compared.length);
    const workers = (s: Scenario | undefined): string | undefined => {
      if (s === undefined) return undefined;
      const spec: ServerSpec = SERVERS[s.server];
      return spec.env.RATELIMIT_WORKERS;
    };
    for (const s of twoWorkers) {
      const oneWorker = byName.get(s.name.replace(', 2 workers', ''));
      expect(workers(s), s.name).toBe('2');
      expect(workers(oneWorker), s.name).toBe('1');
      expect(s.reference, s.name).toBe(oneWorker?.reference);
      expect(s.tables, s.name).toEqual(oneWorker?.tables);
    }
  });

  it('scales descriptors and connections for both, with as many calls in flight, and no ceiling', () => {
    const scale = all.filter((s) => s.tables.includes('scale'));
    const rows = (variant: string): string[] => [
      `gRPC, upstream + Redis, ${variant}`,
      `gRPC, ours + Redis, ${variant}`,
      `gRPC, ours + Redis, 2 workers, ${variant}`,
    ];
    expect(names(scale)).toEqual([
      'gRPC, upstream + Redis',
      'gRPC, ours + Redis',
      'gRPC, ours + Redis, 2 workers',
      ...rows('5 descriptors'),
      ...rows('10 descriptors'),
      ...rows('1 connection × 64 streams'),
      ...rows('8 connections × 8 streams'),
      ...rows('64 connections × 1 stream'),
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
      'gRPC hot over-limit key, ours + Redis, 2 workers, local cache',
    ]);
  });

  it('picks nothing when no name holds it', () => {
    expect(selectScenarios(all, 'no such row')).toEqual([]);
  });

  it('starts each server the picked scenarios need, once', () => {
    expect(serversOf(selectScenarios(all, 'descriptors'))).toEqual(['upstream', 'ours', 'ours, 2 workers']);
  });
});
