import { describe, expect, it } from 'vitest';
import { createEnvReader } from './env.js';
import { DEFAULT_HTTP_TIMEOUTS, readHttpTimeouts } from './http-timeouts.js';

const NAMES = { requestMs: 'X_REQUEST_TIMEOUT', headersMs: 'X_HEADERS_TIMEOUT', idleMs: 'X_IDLE_TIMEOUT' };

describe('readHttpTimeouts', () => {
  it('has the defaults, or the caller’s', () => {
    const env = createEnvReader({});
    expect(readHttpTimeouts(env, NAMES)).toEqual({ requestMs: 30_000, headersMs: 10_000, idleMs: 72_000 });
    expect(readHttpTimeouts(env, NAMES, { ...DEFAULT_HTTP_TIMEOUTS, requestMs: 60_000 }).requestMs).toBe(
      60_000,
    );
  });

  it('reads durations by the names given', () => {
    const env = createEnvReader({
      X_REQUEST_TIMEOUT: '2m',
      X_HEADERS_TIMEOUT: '5s',
      X_IDLE_TIMEOUT: '500ms',
    });
    expect(readHttpTimeouts(env, NAMES)).toEqual({ requestMs: 120_000, headersMs: 5_000, idleMs: 500 });
  });

  it('names every bad value', () => {
    const env = createEnvReader({ X_REQUEST_TIMEOUT: '0', X_HEADERS_TIMEOUT: 'soon', X_IDLE_TIMEOUT: '2h' });
    readHttpTimeouts(env, NAMES);
    expect(() => env.finish()).toThrow(
      [
        'invalid settings:',
        '  X_REQUEST_TIMEOUT="0": expected a duration ≥ 10ms ≤ 1h',
        '  X_HEADERS_TIMEOUT="soon": expected a duration such as 250ms, 10s or 1h',
        '  X_IDLE_TIMEOUT="2h": expected a duration ≥ 10ms ≤ 1h',
      ].join('\n'),
    );
  });

  it('refuses headers allowed longer than the whole request', () => {
    const env = createEnvReader({ X_REQUEST_TIMEOUT: '5s', X_HEADERS_TIMEOUT: '10s' });
    readHttpTimeouts(env, NAMES);
    expect(() => env.finish()).toThrow(
      'X_HEADERS_TIMEOUT: at most X_REQUEST_TIMEOUT, which includes the headers',
    );
  });
});
