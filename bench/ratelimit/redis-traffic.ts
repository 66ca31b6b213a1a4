import { redisCli } from '@portcullis/testing';

/** What a Redis server has received so far: read events (≈ round trips) and commands. */
export interface RedisTraffic {
  reads: number;
  commands: number;
}

export async function readRedisTraffic(port: number): Promise<RedisTraffic> {
  const info = await redisCli(port, 'INFO', 'stats');
  const stat = (name: string): number => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? NaN);
  return { reads: stat('total_reads_processed'), commands: stat('total_commands_processed') };
}

/**
 * Per decision, between two readings: read events (each pipeline that arrives on its own is one) and
 * commands (INCRBY+EXPIRE per fixed window, plus a GET for a sliding window, one EVALSHA per token bucket,
 * none for one answered from the local cache).
 */
export function perDecision(
  before: RedisTraffic,
  after: RedisTraffic,
  decisions: number,
): { roundTrips: number; commands: number } {
  return {
    roundTrips: (after.reads - before.reads) / decisions,
    commands: (after.commands - before.commands) / decisions,
  };
}
