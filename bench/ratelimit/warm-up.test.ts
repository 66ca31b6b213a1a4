import { describe, expect, it } from 'vitest';
import { listScenarios, selectScenarios } from './scenarios.js';
import { FIRST_LOAD_WARMUP_MS, WARMUP_MS, withWarmups } from './warm-up.js';

describe('withWarmups', () => {
  it('warms each server up longer on the first scenario of each protocol it serves', () => {
    const all = listScenarios();
    const picked = [
      ...selectScenarios(all, 'empty'),
      ...selectScenarios(all, 'gRPC, upstream + Redis, 5 descriptors'),
      ...selectScenarios(all, 'gRPC, upstream + Redis, 10 descriptors'),
    ];
    const first = WARMUP_MS + FIRST_LOAD_WARMUP_MS;
    expect(withWarmups(picked).map((w) => [w.scenario.name, w.warmupMs])).toEqual([
      ['gRPC, empty grpc-js (ceiling)', first],
      ['HTTP POST /json, empty fastify (ceiling)', first],
      ['gRPC, upstream + Redis, 5 descriptors', first],
      ['gRPC, upstream + Redis, 10 descriptors', WARMUP_MS],
    ]);
  });
});
