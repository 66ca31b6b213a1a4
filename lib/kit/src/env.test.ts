import { describe, expect, it } from 'vitest';
import { createEnvReader } from './env.js';
import { SettingsError } from './errors.js';

describe('createEnvReader', () => {
  it('returns defaults for unset and empty variables', () => {
    const env = createEnvReader({ EMPTY: '' });
    expect(env.str('UNSET', { default: 'a' })).toBe('a');
    expect(env.int('EMPTY', { default: 7, min: 0, max: 10 })).toBe(7);
    expect(env.bool('UNSET', { default: true })).toBe(true);
    expect(env.durationMs('UNSET', { default: '3s', min: '1s', max: '1m' })).toBe(3000);
    expect(env.list('UNSET')).toEqual([]);
    env.finish();
  });

  it('parses typed values', () => {
    const env = createEnvReader({ N: '42', B: 'T', D: '1m', L: ' a, b ,,c', E: 'CLUSTER', R: '0.5' });
    expect(env.int('N', { default: 1, min: 1, max: 100 })).toBe(42);
    expect(env.bool('B', { default: false })).toBe(true);
    expect(env.durationMs('D', { default: '1s', min: '1s', max: '1h' })).toBe(60_000);
    expect(env.list('L')).toEqual(['a', 'b', 'c']);
    expect(env.oneOf('E', ['single', 'sentinel', 'cluster'] as const, { default: 'single' })).toBe('cluster');
    expect(env.num('R', { default: 0.8, min: 0, max: 1 })).toBe(0.5);
    env.finish();
  });

  it('prefers the main name over an alias and falls back to the alias', () => {
    const env = createEnvReader({ REDIS_URL: 'old:6379', KVSTORE_TYPE: 'single', REDIS_TYPE: 'cluster' });
    expect(env.str('KVSTORE_URL', { alias: 'REDIS_URL' })).toBe('old:6379');
    expect(env.str('KVSTORE_TYPE', { default: 'x', alias: 'REDIS_TYPE' })).toBe('single');
  });

  it('lists every bad value, naming the variable that held it', () => {
    const env = createEnvReader({
      KVSTORE_POOL_SIZE: 'ten',
      REDIS_TLS: 'yes',
      NEAR_LIMIT_RATIO: '1.5',
      WINDOW: '5 seconds',
      KIND: 'mesh',
    });
    env.int('KVSTORE_POOL_SIZE', { default: 10, min: 1, max: 1024 });
    env.bool('KVSTORE_TLS', { default: false, alias: 'REDIS_TLS' });
    env.num('NEAR_LIMIT_RATIO', { default: 0.8, min: 0, max: 1 });
    env.durationMs('WINDOW', { default: '1s', min: '1s', max: '1h' });
    env.oneOf('KIND', ['a', 'b'] as const, { default: 'a' });
    env.problem('X and Y exclude each other');
    let error: unknown;
    try {
      env.finish();
    } catch (e: unknown) {
      error = e;
    }
    expect(error).toBeInstanceOf(SettingsError);
    expect((error as SettingsError).problems).toEqual([
      'KVSTORE_POOL_SIZE="ten": expected an integer ≥ 1 ≤ 1024',
      'REDIS_TLS="yes": expected true or false',
      'NEAR_LIMIT_RATIO="1.5": expected a number ≥ 0 ≤ 1',
      'WINDOW="5 seconds": expected a duration such as 250ms, 10s or 1h',
      'KIND="mesh": expected one of a, b',
      'X and Y exclude each other',
    ]);
  });

  it('rejects fractional and unsafe integers', () => {
    const env = createEnvReader({ A: '1.5', B: '99999999999999999999' });
    env.int('A', { default: 0, min: 0, max: 10 });
    env.int('B', { default: 0, min: 0, max: Number.MAX_SAFE_INTEGER });
    expect(() => env.finish()).toThrow(/A="1.5"[^\n]*\n.*B=/s);
  });

  it('refuses durations and numbers out of range, naming the range as written, never clamping', () => {
    const env = createEnvReader({ HEARTBEAT: '1ms', POLL: '2h', N: '11', R: '-0.5', ALIAS_OLD: '0' });
    expect(env.durationMs('HEARTBEAT', { default: '15s', min: '10ms', max: '1h' })).toBe(15_000);
    expect(env.durationMs('POLL', { default: '5s', min: '10ms', max: '5m' })).toBe(5_000);
    expect(env.int('N', { default: 1, min: 1, max: 10 })).toBe(1);
    expect(env.num('R', { default: 0.5, min: 0, max: 1 })).toBe(0.5);
    env.durationMs('ALIASED', { default: '1s', min: '100ms', max: '1m', alias: 'ALIAS_OLD' });
    expect(() => env.finish()).toThrow(
      [
        'invalid settings:',
        '  HEARTBEAT="1ms": expected a duration ≥ 10ms ≤ 1h',
        '  POLL="2h": expected a duration ≥ 10ms ≤ 5m',
        '  N="11": expected an integer ≥ 1 ≤ 10',
        '  R="-0.5": expected a number ≥ 0 ≤ 1',
        '  ALIAS_OLD="0": expected a duration ≥ 100ms ≤ 1m',
      ].join('\n'),
    );
  });

  it('accepts the bounds themselves', () => {
    const env = createEnvReader({ LOW: '10ms', HIGH: '1h', N: '10' });
    expect(env.durationMs('LOW', { default: '1s', min: '10ms', max: '1h' })).toBe(10);
    expect(env.durationMs('HIGH', { default: '1s', min: '10ms', max: '1h' })).toBe(3_600_000);
    expect(env.int('N', { default: 1, min: 1, max: 10 })).toBe(10);
    env.finish();
  });

  it('allows 0 outside the range of a duration only when it means something', () => {
    const env = createEnvReader({ RELOAD: '0', AGE: '0', SHORT: '1ms' });
    expect(env.durationMs('RELOAD', { default: '10s', min: '100ms', max: '24h', zeroMeans: 'never' })).toBe(
      0,
    );
    env.durationMs('AGE', { default: '10s', min: '100ms', max: '24h' });
    env.durationMs('SHORT', { default: '10s', min: '100ms', max: '24h', zeroMeans: 'never' });
    expect(() => env.finish()).toThrow(
      [
        'invalid settings:',
        '  AGE="0": expected a duration ≥ 100ms ≤ 24h',
        '  SHORT="1ms": expected 0 (never) or a duration ≥ 100ms ≤ 24h',
      ].join('\n'),
    );
  });

  it('throws at once on bounds a caller got wrong', () => {
    const env = createEnvReader({});
    expect(() => env.int('N', { default: 0, min: 1, max: 10 })).toThrow('N: the default is outside ≥ 1 ≤ 10');
    expect(() => env.durationMs('D', { default: '1h', min: '1s', max: '1m' })).toThrow(
      'D: the default 1h is not a duration ≥ 1s ≤ 1m',
    );
    expect(() => env.durationMs('D', { default: '1s', min: '1m', max: '1s' })).toThrow(
      'D: bounds 1m, 1s are not an ascending pair of durations',
    );
    expect(() => env.durationMs('D', { default: '1s', min: 'soon', max: '1m' })).toThrow(RangeError);
  });
});
