import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { connect as connectTls } from 'node:tls';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createScryptHasher } from '@portcullis/accounts';
import { createCollectingLog, createSelfSignedCertificate, waitUntil } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from './harness.js';
import { fetchH2, fingerprintOf, openH2, requestH2, servedFingerprint } from './tls-client.js';

const run = promisify(execFile);
const SESSION_KEY = 'tls-test-session-key-0123456789abcdef';
const PASSWORD = 'correct horse battery';
const SIGN_IN = JSON.stringify({ username: 'mia', password: PASSWORD });
const deps = { passwordHasher: createScryptHasher({ ln: 10 }) };

type Certificate = Awaited<ReturnType<typeof createSelfSignedCertificate>>;

/** curl, a client of its own (nghttp2 for HTTP/2): `<HTTP version> <status>`. */
async function curl(port: number, cert: Certificate, version: '--http2' | '--http1.1'): Promise<string> {
  const { stdout } = await run('curl', [
    version,
    '--silent',
    '--show-error',
    '--cacert',
    cert.cert,
    '--resolve',
    `localhost:${port}:127.0.0.1`,
    '--output',
    '/dev/null',
    '--write-out',
    '%{http_version} %{http_code}',
    `https://localhost:${port}/api/ping`,
  ]);
  return stdout;
}

/** A sign-in over HTTPS/1.1 (node:https offers no h2): its `Set-Cookie`. */
function signInHttps1(port: number, cert: Certificate, headers: Record<string, string> = {}) {
  return new Promise<string>((resolve, reject) => {
    void readFile(cert.cert).then((ca) => {
      const req = httpsRequest(
        {
          host: '127.0.0.1',
          servername: 'localhost',
          port,
          ca,
          method: 'POST',
          path: '/api/auth',
          headers: { 'content-type': 'application/json', ...headers },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(String(res.headers['set-cookie'])));
        },
      );
      req.on('error', reject);
      req.end(SIGN_IN);
    }, reject);
  });
}

const isSecure = (setCookie: string): boolean => /;\s*Secure(;|$)/i.test(setCookie);

describe('issue 20: the gateway serves HTTPS and HTTP/2 (GATEWAY_TLS_CERT/KEY)', () => {
  let cert: Certificate;
  let g: GatewayHarness;

  beforeAll(async () => {
    cert = await createSelfSignedCertificate();
    g = await startGatewayHarness(
      {
        GATEWAY_TLS_CERT: cert.cert,
        GATEWAY_TLS_KEY: cert.key,
        GATEWAY_AUTH: 'session',
        GATEWAY_SESSION_KEYS: SESSION_KEY,
        GATEWAY_TRUST_PROXY: '127.0.0.1',
      },
      deps,
    );
    await g.app.backend.accounts.createUser({ username: 'mia', password: PASSWORD });
  });
  afterAll(async () => {
    await g.close();
    await rm(cert.dir, { recursive: true, force: true });
  });

  it('answers HTTP/2 to a client offering h2 over ALPN, HTTP/1.1 to one that does not, and refuses plaintext', async () => {
    const session = await openH2(g.app.port, cert.cert);
    expect(session.alpnProtocol).toBe('h2');
    const r = await requestH2(session, { path: '/api/ping' });
    session.close();
    expect([r.status, JSON.parse(r.body)]).toEqual([200, { message: 'pong' }]);
    expect(await curl(g.app.port, cert, '--http2')).toBe('2 200');
    expect(await curl(g.app.port, cert, '--http1.1')).toBe('1.1 200');
    await expect(fetch(`http://127.0.0.1:${g.app.port}/api/ping`)).rejects.toThrow();
  });

  it('answers errors over HTTP/2 as over HTTP/1.1: JSON with a code', async () => {
    const r = await fetchH2(g.app.port, cert.cert, { path: '/api/nowhere' });
    expect([r.status, JSON.parse(r.body)]).toMatchObject([404, { code: 'NOT_FOUND' }]);
  });

  it('refuses an HTTP/2 body over the limit with 413 on its stream alone: the session serves the next request', async () => {
    const other = await startGatewayHarness({
      GATEWAY_TLS_CERT: cert.cert,
      GATEWAY_TLS_KEY: cert.key,
      GATEWAY_MAX_BODY_BYTES: '1000',
    });
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    const session = await openH2(other.app.port, cert.cert);
    try {
      const refused = await requestH2(session, {
        method: 'POST',
        path: '/api/echo/1',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'x'.repeat(5000) }),
      });
      expect([refused.status, JSON.parse(refused.body)]).toMatchObject([413, { code: 'BODY_TOO_LARGE' }]);
      expect(refused.headers.connection).toBeUndefined();
      expect((await requestH2(session, { path: '/api/ping' })).status).toBe(200);
      // Node drops a Connection header on HTTP/2 with a process warning: none is sent
      expect(warnings.filter((w) => w.includes('connection header'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      session.close();
      await other.close();
    }
  });

  it('sets Secure on the session cookie over HTTP/2 and HTTPS/1.1, even when a trusted proxy says http', async () => {
    const h2 = await fetchH2(g.app.port, cert.cert, {
      method: 'POST',
      path: '/api/auth',
      // as a browser on the gateway's own origin: the CSRF rule finds the host in `:authority`
      headers: { 'content-type': 'application/json', origin: `https://localhost:${g.app.port}` },
      body: SIGN_IN,
    });
    expect(h2.status).toBe(200);
    const h2Cookie = String(h2.headers['set-cookie']);
    expect(h2Cookie).toMatch(/^portcullis_session=/);
    expect(isSecure(h2Cookie)).toBe(true);
    expect(isSecure(await signInHttps1(g.app.port, cert))).toBe(true);
    // 127.0.0.1 is a trusted proxy here, yet the connection it made is TLS
    expect(isSecure(await signInHttps1(g.app.port, cert, { 'x-forwarded-proto': 'http' }))).toBe(true);
  });

  it('keeps the HTTP/1.1 limits on TLS connections: headers that never end get 408', async () => {
    const other = await startGatewayHarness({
      GATEWAY_TLS_CERT: cert.cert,
      GATEWAY_TLS_KEY: cert.key,
      GATEWAY_HEADERS_TIMEOUT: '200ms',
      GATEWAY_REQUEST_TIMEOUT: '300ms',
    });
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connectTls({
        host: '127.0.0.1',
        port: other.app.port,
        servername: 'localhost',
        rejectUnauthorized: false,
        ALPNProtocols: ['http/1.1'],
      });
      let data = '';
      socket.on('secureConnect', () => socket.write('GET /api/ping HTTP/1.1\r\nHost: localhost\r\n'));
      socket.on('data', (chunk: Buffer) => (data += chunk.toString()));
      socket.on('close', () => resolve(data));
      socket.on('error', reject);
    });
    await other.close();
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('"code":"REQUEST_TIMEOUT"');
  });

  it('closes with an HTTP/2 session still open: the session is sent GOAWAY', async () => {
    const other = await startGatewayHarness({ GATEWAY_TLS_CERT: cert.cert, GATEWAY_TLS_KEY: cert.key });
    const session = await openH2(other.app.port, cert.cert);
    expect((await requestH2(session, { path: '/api/ping' })).status).toBe(200);
    const closed = new Promise<void>((resolve) => session.once('close', resolve));
    await other.close();
    await closed;
    expect(session.closed || session.destroyed).toBe(true);
  });
});

describe('issue 20: Secure cookies behind a proxy, on a plain HTTP listener', () => {
  const gateways: GatewayHarness[] = [];
  afterAll(async () => {
    for (const g of gateways) await g.close();
  });

  it.each([
    ['trusted (127.0.0.1)', '127.0.0.1', true],
    ['untrusted (only 10.0.0.1 is)', '10.0.0.1', false],
  ] as const)('X-Forwarded-Proto: https from a %s peer: Secure %s', async (_, trustProxy, secure) => {
    const g = await startGatewayHarness(
      { GATEWAY_AUTH: 'session', GATEWAY_SESSION_KEYS: SESSION_KEY, GATEWAY_TRUST_PROXY: trustProxy },
      deps,
    );
    gateways.push(g);
    await g.app.backend.accounts.createUser({ username: 'mia', password: PASSWORD });
    const r = await g.request('POST', '/api/auth', {
      body: { username: 'mia', password: PASSWORD },
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(r.status).toBe(200);
    const setCookie = r.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^portcullis_session=/);
    expect(isSecure(setCookie)).toBe(secure);
    const plain = await g.request('POST', '/api/auth', { body: { username: 'mia', password: PASSWORD } });
    expect(isSecure(plain.headers.get('set-cookie') ?? '')).toBe(false);
  });

  // the sign-in limit per address keys on request.ip, which X-Forwarded-For moves only from a trusted peer
  it.each([
    ['trusted', '127.0.0.1', [401, 401]],
    ['untrusted', '10.0.0.1', [401, 429]],
  ] as const)(
    'X-Forwarded-For from a %s peer: two forwarded addresses count as %j',
    async (_, trustProxy, statuses) => {
      const g = await startGatewayHarness(
        {
          GATEWAY_AUTH: 'jwt',
          GATEWAY_TRUST_PROXY: trustProxy,
          GATEWAY_RATELIMIT_URL: 'none',
          GATEWAY_FALLBACK_SIGN_IN_PER_ADDRESS_PER_MINUTE: '1',
        },
        { ...deps, now: () => Date.UTC(2026, 0, 1, 12, 0, 30) },
      );
      gateways.push(g);
      const got: number[] = [];
      for (const address of ['198.51.100.1', '198.51.100.2']) {
        const r = await g.request('POST', '/api/auth', {
          body: { username: 'nobody', password: 'a guess' },
          headers: { 'x-forwarded-for': address },
        });
        got.push(r.status);
      }
      expect(got).toEqual(statuses);
    },
  );
});

describe('issue 20: the certificate is renewed without a restart', () => {
  let first: Certificate;
  let second: Certificate;
  let dir: string;
  let g: GatewayHarness;
  const { log, lines } = createCollectingLog();
  const certFile = () => join(dir, 'tls.crt');
  const keyFile = () => join(dir, 'tls.key');
  const install = async (c: Certificate) => {
    await copyFile(c.cert, certFile());
    await copyFile(c.key, keyFile());
  };
  const rejections = () =>
    lines.filter(
      (l) => l['@message'] === 'new TLS files do not make a valid TLS context; keeping the last good ones',
    ).length;

  beforeAll(async () => {
    first = await createSelfSignedCertificate();
    second = await createSelfSignedCertificate();
    dir = await mkdtemp(join(tmpdir(), 'gateway-tls-'));
    await install(first);
    g = await startGatewayHarness(
      { GATEWAY_TLS_CERT: certFile(), GATEWAY_TLS_KEY: keyFile(), GATEWAY_TLS_RELOAD_INTERVAL: '100ms' },
      { log },
    );
  });
  afterAll(async () => {
    await g.close();
    for (const d of [first.dir, second.dir, dir]) await rm(d, { recursive: true, force: true });
  });

  it('serves new files to new connections, keeps open ones, and keeps the last good set when new files are broken', async () => {
    expect(await servedFingerprint(g.app.port)).toBe(await fingerprintOf(first.cert));
    const open = await openH2(g.app.port, first.cert);

    await install(second);
    const renewed = await fingerprintOf(second.cert);
    await waitUntil(async () => (await servedFingerprint(g.app.port)) === renewed, 10_000);
    expect((await requestH2(open, { path: '/api/ping' })).status).toBe(200);
    open.close();
    expect((await fetchH2(g.app.port, second.cert, { path: '/api/ping' })).status).toBe(200);

    const before = rejections();
    await writeFile(keyFile(), await readFile(first.key)); // a key that is not the certificate's
    await waitUntil(() => rejections() > before, 10_000);
    expect(await servedFingerprint(g.app.port)).toBe(renewed);
    expect((await fetchH2(g.app.port, second.cert, { path: '/api/ping' })).status).toBe(200);
  });
});

describe('issue 20: a certificate that cannot be used stops start-up, naming it', () => {
  let first: Certificate;
  let second: Certificate;
  beforeAll(async () => {
    first = await createSelfSignedCertificate();
    second = await createSelfSignedCertificate();
  });
  afterAll(async () => {
    for (const d of [first.dir, second.dir]) await rm(d, { recursive: true, force: true });
  });

  it('a file that cannot be read', async () => {
    const missing = join(first.dir, 'missing.crt');
    await expect(
      startGatewayHarness({ GATEWAY_TLS_CERT: missing, GATEWAY_TLS_KEY: first.key }),
    ).rejects.toMatchObject({ problems: [`GATEWAY_TLS_CERT="${missing}": cannot read (ENOENT)`] });
  });

  it('a key that is not the certificate’s', async () => {
    await expect(
      startGatewayHarness({ GATEWAY_TLS_CERT: first.cert, GATEWAY_TLS_KEY: second.key }),
    ).rejects.toMatchObject({
      problems: [expect.stringMatching(/^GATEWAY_TLS_CERT, GATEWAY_TLS_KEY: not a usable TLS set \(/)],
    });
  });
});
