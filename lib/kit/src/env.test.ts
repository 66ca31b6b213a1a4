import { describe, expect, it } from 'vitest';
import { createEnvReader } from './env.js';
import { SettingsError } from './errors.js';

describe('createEnvReader', () => {
  it('returns defaults for unset and empty variables', () => {
    const env = createEnvReader({ EMPTY: '' });
    expect(env.str('UNSET', { default: 'a' })).toBe('a');
    expect(env.int('EMPTY', { default: 7 })).toBe(7);
    expect(env.bool('UNSET', { default: true })).toBe(true);
    expect(env.durationMs('UNSET', { default: '3s' })).toBe(3000);
    expect(env.list('UNSET')).toEqual([]);
    env.finish();
  });

  it('parses typed values', () => {
    const env = createEnvReader({ N: '42', B: 'T', D: '1m', L: ' a, b ,,c', E: 'CLUSTER', R: '0.5' });
    expect(env.int('N', { default: 0, min: 1 })).toBe(42);
    expect(env.bool('B', { default: false })).toBe(true);
    expect(env.durationMs('D', { default: '0' })).toBe(60_000);
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
    env.int('KVSTORE_POOL_SIZE', { default: 10, min: 1 });
    env.bool('KVSTORE_TLS', { default: false, alias: 'REDIS_TLS' });
    env.num('NEAR_LIMIT_RATIO', { default: 0.8, min: 0, max: 1 });
    env.durationMs('WINDOW', { default: '0' });
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
      'KVSTORE_POOL_SIZE="ten": expected an integer ≥ 1',
      'REDIS_TLS="yes": expected true or false',
      'NEAR_LIMIT_RATIO="1.5": expected a number ≥ 0 ≤ 1',
      'WINDOW="5 seconds": expected a duration such as 250ms, 10s or 1h',
      'KIND="mesh": expected one of a, b',
      'X and Y exclude each other',
    ]);
  });

  it('rejects fractional and unsafe integers', () => {
    const env = createEnvReader({ A: '1.5', B: '99999999999999999999' });
    env.int('A', { default: 0 });
    env.int('B', { default: 0 });
    expect(() => env.finish()).toThrow(/A="1.5".*\n.*B=/s);
  });
});
