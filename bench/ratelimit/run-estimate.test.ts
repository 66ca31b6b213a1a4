import { describe, expect, it } from 'vitest';
import { estimateRunMs } from './run-estimate.js';
import { listScenarios, selectScenarios, serversOf } from './scenarios.js';
import { FIRST_LOAD_WARMUP_MS } from './warm-up.js';

describe('estimateRunMs', () => {
  const grpcOnly = selectScenarios(listScenarios(), 'gRPC, upstream + Redis, 5 descriptors');
  const httpOnly = selectScenarios(listScenarios(), 'HTTP POST /json, empty fastify (ceiling)');

  it('counts the start-ups, then per scenario the checks, the warm-up and each measured run', () => {
    const once = estimateRunMs(grpcOnly, serversOf(grpcOnly), {
      durationMs: 3000,
      repeat: 1,
    });
    const thrice = estimateRunMs(grpcOnly, serversOf(grpcOnly), {
      durationMs: 3000,
      repeat: 3,
    });
    expect(thrice - once).toBe(2 * 3000);
  });

  it('counts the longer warm-up of the first scenario of a server on a protocol', () => {
    const shape = { durationMs: 3000, repeat: 1 };
    const [first, second] = selectScenarios(listScenarios(), 'gRPC, upstream + Redis, ').filter((s) =>
      s.name.endsWith('descriptors'),
    );
    if (!first || !second) throw new Error('expected two scale rows on one upstream');
    const secondAfterFirst = estimateRunMs([first, second], [], shape) - estimateRunMs([first], [], shape);
    expect(estimateRunMs([second], [], shape) - secondAfterFirst).toBe(FIRST_LOAD_WARMUP_MS);
  });

  it('counts the whole seconds wrk runs', () => {
    const shape = { repeat: 1 };
    const short = estimateRunMs(httpOnly, [], { ...shape, durationMs: 300 });
    const second = estimateRunMs(httpOnly, [], { ...shape, durationMs: 1000 });
    expect(short).toBe(second);
  });
});
