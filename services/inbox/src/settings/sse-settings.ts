import type { EnvReader } from '@portcullis/kit';

/** Live streams (`GET /api/endpoints/:id/stream`), per process. */
export interface SseSettings {
  heartbeatMs: number;
  /** Events waiting to be written to one client beyond this end its stream. */
  maxPendingEvents: number;
  /** Streams open at once in this process, whoever opened them. */
  maxStreams: number;
  /** Streams open at once in this process from one client address. */
  maxStreamsPerAddress: number;
}

export function readSseSettings(env: EnvReader): SseSettings {
  return {
    heartbeatMs: env.durationMs('INBOX_SSE_HEARTBEAT', { default: '15s', min: '10ms', max: '1h' }),
    maxPendingEvents: env.int('INBOX_SSE_MAX_PENDING_EVENTS', { default: 256, min: 1, max: 100_000 }),
    maxStreams: env.int('INBOX_SSE_MAX_STREAMS', { default: 10_000, min: 1, max: 1_000_000 }),
    maxStreamsPerAddress: env.int('INBOX_SSE_MAX_STREAMS_PER_ADDRESS', {
      default: 100,
      min: 1,
      max: 1_000_000,
    }),
  };
}
