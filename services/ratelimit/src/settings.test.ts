import { SettingsError } from '@portcullis/kit';
import { describe, expect, it } from 'vitest';
import { configDirectory, loadSettings } from './settings.js';

describe('loadSettings', () => {
  it('has the spec defaults', () => {
    const s = loadSettings({});
    expect(s.http).toEqual({ host: '0.0.0.0', port: 8080 });
    expect(s.grpc).toEqual({ host: '0.0.0.0', port: 8081 });
    expect(s.debug).toEqual({ host: '0.0.0.0', port: 6070 });
    expect(s.log).toEqual({ level: 'warn', format: 'text' });
    expect(configDirectory(s.config)).toBe('/srv/runtime_data/current/config');
    expect(s.config).toMatchObject({
      watchRoot: true,
      ignoreDotFiles: false,
      mergeDomains: false,
      forceStartWithoutInitialConfig: false,
    });
    expect(s.limiter).toMatchObject({
      backendType: 'redis',
      nearLimitRatio: 0.8,
      shadowMode: false,
      cacheKeyPrefix: '',
    });
    expect(s.limiter.responseHeaders).toEqual({
      enabled: false,
      limit: 'RateLimit-Limit',
      remaining: 'RateLimit-Remaining',
      reset: 'RateLimit-Reset',
    });
    expect(s.kvstore).toMatchObject({ url: 'localhost:6379', socketType: 'tcp', timeoutMs: 10_000 });
    expect(Object.isFrozen(s.kvstore.tls)).toBe(true);
  });

  it("accepts upstream's REDIS_* names as aliases", () => {
    const s = loadSettings({
      REDIS_URL: '/var/run/nutcracker/ratelimit.sock',
      REDIS_AUTH: 'user:secret',
      REDIS_POOL_SIZE: '4',
      REDIS_TLS: 'true',
      REDIS_TIMEOUT: '250ms',
    });
    expect(s.kvstore).toMatchObject({
      url: '/var/run/nutcracker/ratelimit.sock',
      socketType: 'unix',
      auth: 'user:secret',
      poolSize: 4,
      timeoutMs: 250,
    });
    expect(s.kvstore.tls.enabled).toBe(true);
  });

  it('names every bad variable at once', () => {
    let error: unknown;
    try {
      loadSettings({
        PORT: 'http',
        KVSTORE_POOL_SIZE: 'ten',
        NEAR_LIMIT_RATIO: '2',
        BACKEND_TYPE: 'mongo',
        LOG_LEVEL: 'loud',
      });
    } catch (e: unknown) {
      error = e;
    }
    expect(error).toBeInstanceOf(SettingsError);
    expect((error as SettingsError).problems).toEqual([
      'BACKEND_TYPE="mongo": expected one of redis, objcache, memory (or memcache)',
      'PORT="http": expected an integer ≥ 0 ≤ 65535',
      'LOG_LEVEL="loud": expected one of trace, debug, info, warn, error, fatal',
      'NEAR_LIMIT_RATIO="2": expected a number ≥ 0 ≤ 1',
      'KVSTORE_POOL_SIZE="ten": expected an integer ≥ 1 ≤ 1024',
    ]);
  });
});
