import { SettingsError } from '@portcullis/kit';
import { describe, expect, it } from 'vitest';
import { loadSettings } from '../settings.js';

function problems(env: Record<string, string>): readonly string[] {
  try {
    loadSettings(env);
  } catch (e: unknown) {
    if (e instanceof SettingsError) return e.problems;
    throw e;
  }
  return [];
}

describe('backend settings', () => {
  it('reads sentinel and cluster URLs, pool size and pipelining, with REDIS_* aliases', () => {
    const s = loadSettings({
      KVSTORE_TYPE: 'sentinel',
      KVSTORE_URL: 'mymaster,10.0.0.1:26379,10.0.0.2:26379',
      REDIS_POOL_SIZE: '3',
      REDIS_PIPELINE_WINDOW: '500us',
      KVSTORE_PIPELINE_LIMIT: '64',
    });
    expect(s.kvstore).toMatchObject({
      type: 'sentinel',
      url: 'mymaster,10.0.0.1:26379,10.0.0.2:26379',
      poolSize: 3,
      pipelineWindowMs: 0.5,
      pipelineLimit: 64,
      perSecond: undefined,
    });
    expect(loadSettings({ REDIS_TYPE: 'CLUSTER', REDIS_URL: 'a:1,b:2,c:3' }).kvstore.type).toBe('cluster');
  });

  it('reads the cluster pipeline parallelism, 0 (all keys at once) by default, with REDIS_* aliases', () => {
    expect(loadSettings({}).kvstore.clusterPipelineParallelism).toBe(0);
    const s = loadSettings({
      REDIS_CLUSTER_PIPELINE_PARALLELISM: '1',
      KVSTORE_PERSECOND: 'true',
      REDIS_PERSECOND_CLUSTER_PIPELINE_PARALLELISM: '4',
    });
    expect(s.kvstore.clusterPipelineParallelism).toBe(1);
    expect(s.kvstore.perSecond?.clusterPipelineParallelism).toBe(4);
    expect(
      problems({
        KVSTORE_CLUSTER_PIPELINE_PARALLELISM: '-1',
        KVSTORE_PERSECOND: 'true',
        KVSTORE_PERSECOND_CLUSTER_PIPELINE_PARALLELISM: 'two',
      }),
    ).toEqual([
      'KVSTORE_CLUSTER_PIPELINE_PARALLELISM="-1": expected an integer ≥ 0 ≤ 1024',
      'KVSTORE_PERSECOND_CLUSTER_PIPELINE_PARALLELISM="two": expected an integer ≥ 0 ≤ 1024',
    ]);
  });

  it('reads the per-second instance, sharing the main certificate files unless it names its own', () => {
    const s = loadSettings({
      KVSTORE_TLS_CACERT: '/ca.pem',
      KVSTORE_TLS_CLIENT_CERT: '/client.pem',
      KVSTORE_PERSECOND: 'true',
      KVSTORE_PERSECOND_URL: '127.0.0.1:6380',
      KVSTORE_PERSECOND_TLS: 'true',
      KVSTORE_PERSECOND_TLS_CLIENT_CERT: '/second-client.pem',
      REDIS_PERSECOND_AUTH: 'pw',
      REDIS_PERSECOND_POOL_SIZE: '2',
    });
    expect(s.kvstore.tls.enabled).toBe(false);
    expect(s.kvstore.perSecond).toMatchObject({
      type: 'single',
      url: '127.0.0.1:6380',
      auth: 'pw',
      poolSize: 2,
      tls: { enabled: true, caCert: '/ca.pem', clientCert: '/second-client.pem', clientKey: '' },
    });
  });

  it('reads the object cache, by its name or upstream memcache', () => {
    const s = loadSettings({
      BACKEND_TYPE: 'memcache',
      MEMCACHE_HOST_PORT: 'a:11211, b:11211',
      OBJCACHE_MAX_IDLE_CONNS: '4',
    });
    expect(s.limiter.backendType).toBe('objcache');
    expect(s.objcache).toEqual({
      hostPorts: ['a:11211', 'b:11211'],
      srv: '',
      srvRefreshMs: 0,
      maxIdleConns: 4,
      tls: { enabled: false, caCert: '', clientCert: '', clientKey: '', skipHostnameVerification: false },
    });
    expect(loadSettings({}).objcache.maxIdleConns).toBe(2);
    expect(
      loadSettings({ BACKEND_TYPE: 'objcache', OBJCACHE_SRV: '_mc._tcp.example', OBJCACHE_SRV_REFRESH: '1m' })
        .objcache,
    ).toMatchObject({ srv: '_mc._tcp.example', srvRefreshMs: 60_000 });
  });

  it('reads memcached TLS under upstream’s MEMCACHE_TLS* names too; a client certificate needs its key', () => {
    expect(
      loadSettings({
        MEMCACHE_TLS: 'true',
        MEMCACHE_TLS_CACERT: '/ca.pem',
        OBJCACHE_TLS_CLIENT_CERT: '/client.pem',
        MEMCACHE_TLS_CLIENT_KEY: '/client.key',
        MEMCACHE_TLS_SKIP_HOSTNAME_VERIFICATION: 'true',
      }).objcache.tls,
    ).toEqual({
      enabled: true,
      caCert: '/ca.pem',
      clientCert: '/client.pem',
      clientKey: '/client.key',
      skipHostnameVerification: true,
    });
    expect(problems({ OBJCACHE_TLS: 'true', OBJCACHE_TLS_CLIENT_CERT: '/client.pem' })).toEqual([
      'OBJCACHE_TLS_CLIENT_CERT and OBJCACHE_TLS_CLIENT_KEY go together: set both or neither',
    ]);
  });

  it('reads the local cache size, 0 by default', () => {
    expect(loadSettings({}).limiter.localCacheSizeBytes).toBe(0);
    expect(loadSettings({ LOCAL_CACHE_SIZE_IN_BYTES: '1048576' }).limiter.localCacheSizeBytes).toBe(
      1_048_576,
    );
  });

  it('names bad backend settings', () => {
    expect(
      problems({
        KVSTORE_TYPE: 'sentinel',
        KVSTORE_URL: 'onlymaster',
        KVSTORE_PERSECOND: 'true',
        KVSTORE_PERSECOND_TYPE: 'ring',
        KVSTORE_PIPELINE_WINDOW: 'soon',
        LOCAL_CACHE_SIZE_IN_BYTES: '-1',
      }),
    ).toEqual([
      'LOCAL_CACHE_SIZE_IN_BYTES="-1": expected an integer ≥ 0 ≤ 8589934592',
      'KVSTORE_URL="onlymaster": a sentinel URL is the master name, then sentinel host:port items',
      'KVSTORE_PIPELINE_WINDOW="soon": expected a duration such as 250ms, 10s or 1h',
      'KVSTORE_PERSECOND_TYPE="ring": expected one of single, sentinel, cluster',
    ]);
    expect(problems({ BACKEND_TYPE: 'objcache' })).toEqual([
      'BACKEND_TYPE=objcache needs OBJCACHE_HOST_PORT or OBJCACHE_SRV',
    ]);
    expect(problems({ BACKEND_TYPE: 'objcache', OBJCACHE_HOST_PORT: 'a:1', OBJCACHE_SRV: 'b' })).toEqual([
      'OBJCACHE_HOST_PORT and OBJCACHE_SRV exclude each other: set one',
    ]);
  });
});
