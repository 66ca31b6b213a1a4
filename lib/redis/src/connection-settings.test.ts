import { createEnvReader, SettingsError } from '@portcullis/kit';
import { describe, expect, it } from 'vitest';
import {
  GATEWAY_REDIS_ENV,
  INBOX_REDIS_ENV,
  RATELIMIT_PERSECOND_REDIS_ENV,
  RATELIMIT_REDIS_ENV,
  readRedisConnection,
  type RedisEnvNames,
} from './connection-settings.js';

function read(names: RedisEnvNames, env: Record<string, string>) {
  const reader = createEnvReader(env);
  const c = readRedisConnection(reader, names, { url: '' });
  reader.finish();
  return c;
}

function problems(names: RedisEnvNames, env: Record<string, string>): readonly string[] {
  try {
    read(names, env);
  } catch (e: unknown) {
    if (e instanceof SettingsError) return e.problems;
    throw e;
  }
  return [];
}

describe('readRedisConnection', () => {
  it('reads one family of whole names per service, each with its own prefix', () => {
    const env = {
      GATEWAY_REDIS_TYPE: 'sentinel',
      GATEWAY_REDIS_URL: 'mymaster,10.0.0.1:26379',
      GATEWAY_REDIS_AUTH: 'user:secret',
      GATEWAY_REDIS_SENTINEL_AUTH: 'sentinel-secret',
      GATEWAY_REDIS_TLS: 'true',
      GATEWAY_REDIS_TLS_CACERT: '/ca.pem',
      GATEWAY_REDIS_TLS_CLIENT_CERT: '/client.pem',
      GATEWAY_REDIS_TLS_CLIENT_KEY: '/client.key',
      GATEWAY_REDIS_TIMEOUT: '2s',
      INBOX_REDIS_URL: 'redis://inbox:6379',
    };
    expect(read(GATEWAY_REDIS_ENV, env)).toEqual({
      type: 'sentinel',
      url: 'mymaster,10.0.0.1:26379',
      socketType: 'tcp',
      poolSize: 1,
      auth: 'user:secret',
      sentinelAuth: 'sentinel-secret',
      tls: { enabled: true, caCert: '/ca.pem', clientCert: '/client.pem', clientKey: '/client.key' },
      timeoutMs: 2000,
    });
    expect(read(INBOX_REDIS_ENV, env)).toMatchObject({ type: 'single', url: 'redis://inbox:6379', auth: '' });
  });

  it('keeps REDIS_URL as the gateway and inbox alias, the service name winning', () => {
    expect(read(GATEWAY_REDIS_ENV, { REDIS_URL: 'redis://old:6379' }).url).toBe('redis://old:6379');
    const both = { REDIS_URL: 'redis://old:6379', INBOX_REDIS_URL: 'redis://new:6379' };
    expect(read(INBOX_REDIS_ENV, both).url).toBe('redis://new:6379');
    expect(read(INBOX_REDIS_ENV, {}).url).toBe('');
  });

  it('reads the pool size only where a service names it (the ratelimit)', () => {
    expect(read(RATELIMIT_REDIS_ENV, { REDIS_POOL_SIZE: '4' }).poolSize).toBe(4);
    expect(read(RATELIMIT_PERSECOND_REDIS_ENV, { KVSTORE_PERSECOND_POOL_SIZE: '2' }).poolSize).toBe(2);
    expect(read(GATEWAY_REDIS_ENV, { GATEWAY_REDIS_POOL_SIZE: '9' }).poolSize).toBe(1);
  });

  it('names each bad variable', () => {
    expect(
      problems(INBOX_REDIS_ENV, {
        INBOX_REDIS_TYPE: 'ring',
        INBOX_REDIS_TLS: 'maybe',
      }),
    ).toEqual([
      'INBOX_REDIS_TYPE="ring": expected one of single, sentinel, cluster',
      'INBOX_REDIS_TLS="maybe": expected true or false',
    ]);
    expect(
      problems(GATEWAY_REDIS_ENV, { GATEWAY_REDIS_TYPE: 'sentinel', GATEWAY_REDIS_URL: 'mymaster' }),
    ).toEqual([
      'GATEWAY_REDIS_URL="mymaster": a sentinel URL is the master name, then sentinel host:port items',
    ]);
  });
});
