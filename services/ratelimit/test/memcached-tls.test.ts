import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import { promisify } from 'node:util';
import { SettingsError } from '@portcullis/kit';
import {
  createCertificates,
  quietLog,
  startMemcached,
  waitUntil,
  type MemcachedServer,
  type TestCertificates,
} from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTlsTunnels } from '../src/backends/memcached-tls.js';
import { startHarness, type Harness } from './harness.js';

const RULES = {
  'a.yaml': 'domain: a\ndescriptors:\n  - key: k\n    rate_limit: {unit: hour, requests_per_unit: 2}\n',
};
const request = (value: string) => ({ domain: 'a', descriptors: [{ entries: [{ key: 'k', value }] }] });

/** `name: value` of each line of `/stats` that starts with `ratelimit.memcache.`. */
async function memcacheStats(h: Harness): Promise<Record<string, number>> {
  const text = (await h.get('/stats', 'debug')).text;
  return Object.fromEntries(
    text
      .split('\n')
      .filter((l) => l.startsWith('ratelimit.memcache.'))
      .map((l): [string, number] => {
        const [name = '', value] = l.split(': ');
        return [name, Number(value)];
      }),
  );
}

describe('memcached over TLS (upstream’s MEMCACHE_TLS* names)', () => {
  let certs: TestCertificates;
  let memcached: MemcachedServer;
  let h: Harness;
  beforeAll(async () => {
    certs = await createCertificates();
    // Debian's memcached built with TLS, speaking only TLS and requiring a client certificate
    memcached = await startMemcached({ tls: certs });
    h = await startHarness(RULES, {
      BACKEND_TYPE: 'memcache',
      MEMCACHE_HOST_PORT: memcached.address,
      MEMCACHE_MAX_IDLE_CONNS: '1',
      MEMCACHE_TLS: 'true',
      MEMCACHE_TLS_CACERT: certs.caCert,
      MEMCACHE_TLS_CLIENT_CERT: certs.clientCert,
      MEMCACHE_TLS_CLIENT_KEY: certs.clientKey,
    });
  });
  afterAll(async () => {
    await h.close();
    await memcached.stop();
  });

  it('counts in a memcached that only speaks TLS, and counts its operations as upstream names them', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await h.json(request('tls'))).status);
      // the increments run after the answer: the next read must see this one's
      await waitUntil(async () => (await memcacheStats(h))['ratelimit.memcache.keys_requested'] === i + 1);
      await waitUntil(async () => {
        const s = await memcacheStats(h);
        return (
          (s['ratelimit.memcache.add.__code=success'] ?? 0) +
            (s['ratelimit.memcache.increment.__code=success'] ?? 0) ===
          i + 1
        );
      });
    }
    expect(statuses).toEqual([200, 200, 429]);
    expect(await memcacheStats(h)).toEqual({
      'ratelimit.memcache.multiget.__code=success': 3,
      'ratelimit.memcache.multiget.__code=error': 0,
      'ratelimit.memcache.keys_requested': 3,
      'ratelimit.memcache.keys_found': 2,
      'ratelimit.memcache.add.__code=success': 1,
      'ratelimit.memcache.increment.__code=success': 2,
      'ratelimit.memcache.increment.__code=error': 0,
    });
    const metrics = (await h.get('/metrics', 'debug')).text;
    expect(metrics).toContain('ratelimit_memcache_multiget{code="success"} 3');
    expect(metrics).toContain('ratelimit_memcache_add{code="success"} 1');
    expect(metrics).toContain('ratelimit_memcache_keys_found 2');
  });
});

/** Sends `version` to `address` and returns what came back before the connection closed or 2 s passed. */
const ASK_VERSION = `
const socket = require('node:net').connect(Number(process.argv[1]), '127.0.0.1');
let reply = '';
socket.on('connect', () => socket.write('version\\r\\n'));
socket.on('data', (d) => { reply += d; if (reply.includes('\\r\\n')) socket.end(); });
socket.on('error', () => {});
socket.on('close', () => { process.stdout.write(reply); });
setTimeout(() => socket.destroy(), 2000).unref();
`;

function askVersionHere(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write('version\r\n'));
    let reply = '';
    socket.on('data', (d: Buffer) => {
      reply += d.toString();
      if (reply.includes('\r\n')) socket.end();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(reply));
  });
}

describe('the memcached TLS listener', () => {
  it('carries this process’s connections to the TLS node and refuses another process’s', async () => {
    const certs = await createCertificates();
    const memcached = await startMemcached({ tls: certs });
    const tunnels = createTlsTunnels(
      {
        enabled: true,
        caCert: certs.caCert,
        clientCert: certs.clientCert,
        clientKey: certs.clientKey,
        skipHostnameVerification: false,
      },
      { log: quietLog },
    );
    try {
      const port = Number((await tunnels.open(memcached.address)).split(':')[1]);
      expect(await askVersionHere(port)).toMatch(/^VERSION \d/);
      const other = await promisify(execFile)(process.execPath, ['-e', ASK_VERSION, String(port)]);
      expect(other.stdout).toBe('');
    } finally {
      tunnels.close();
      await memcached.stop();
    }
  });

  it('refuses a node whose port is not one, naming it', async () => {
    const tunnels = createTlsTunnels(
      { enabled: true, caCert: '', clientCert: '', clientKey: '', skipHostnameVerification: false },
      { log: quietLog },
    );
    try {
      await expect(tunnels.open('cache-0:abc')).rejects.toThrow(SettingsError);
      await expect(tunnels.open('cache-0:abc')).rejects.toThrow(
        '"cache-0:abc": expected host:port with a port from 1 to 65535',
      );
    } finally {
      tunnels.close();
    }
  });
});
