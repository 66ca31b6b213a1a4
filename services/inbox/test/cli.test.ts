import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createCertificates,
  createSelfSignedCertificate,
  freePort,
  startRedis,
  type TestCertificates,
} from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, forwardTarget, startInboxHarness, waitUntil, type InboxHarness } from './harness.js';

// The `inbox` CLI as users run it: a child process (bin/inbox.mjs) against a real inbox app (memory store)
// and real target servers that verify a GitHub-style HMAC over the body they receive.

const BIN = fileURLToPath(new URL('../bin/inbox.mjs', import.meta.url));
const SECRET = 'cli-test-secret';
/** Not valid UTF-8, with CR LF and NUL: only byte-exact forwarding keeps the signature valid. */
const BODY = Buffer.concat([Buffer.from('{"event":"push"}\r\n'), Buffer.from([0xff, 0x00, 0xfe, 0x80])]);

const sign = (body: Buffer): string => `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;

interface Received {
  method: string;
  url: string;
  rawHeaders: string[];
  body: Buffer;
  signatureValid: boolean;
}

/** An http target, or an https one serving `tls` (a certificate for localhost/127.0.0.1 and its key). */
async function startTarget(
  tls?: Pick<TestCertificates, 'serverCert' | 'serverKey'>,
): Promise<{ url: string; received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = [];
  const handler: RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const given = Buffer.from(String(req.headers['x-hub-signature-256'] ?? ''));
      const expected = Buffer.from(sign(body));
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        rawHeaders: req.rawHeaders,
        body,
        signatureValid: given.length === expected.length && timingSafeEqual(given, expected),
      });
      res.writeHead(202).end('ok');
    });
  };
  const server: Server = tls
    ? createHttpsServer({ cert: await readFile(tls.serverCert), key: await readFile(tls.serverKey) }, handler)
    : createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: tls ? `https://localhost:${port}` : `http://127.0.0.1:${port}`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

interface CliRun {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number>;
}

let configDir = '';

function startCli(args: string[], env: Record<string, string> = {}): CliRun {
  const base = { ...process.env };
  delete base.INBOX_URL;
  delete base.INBOX_TOKEN;
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...base, INBOX_CONFIG: join(configDir, 'inbox.json'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Runs a command that ends by itself, bounded. */
async function runCli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const run = startCli(args, env);
  let code: number | undefined;
  void run.exited.then((c) => (code = c));
  try {
    await waitUntil(() => code !== undefined, 15_000);
  } finally {
    if (code === undefined) run.child.kill('SIGKILL');
  }
  return { code: code ?? -1, stdout: run.stdout(), stderr: run.stderr() };
}

async function stopCli(run: CliRun): Promise<void> {
  if (run.child.exitCode === null && run.child.signalCode === null) {
    run.child.kill('SIGINT');
    await run.exited;
  }
}

const header = (raw: string[], name: string): string | undefined => {
  const i = raw.findIndex((h, n) => n % 2 === 0 && h.toLowerCase() === name);
  return i === -1 ? undefined : raw[i + 1];
};

describe('inbox CLI', () => {
  let h: InboxHarness;

  beforeAll(async () => {
    configDir = await mkdtemp(join(tmpdir(), 'inbox-cli-'));
    h = await startInboxHarness();
  });
  afterAll(async () => {
    await h.close();
    await rm(configDir, { recursive: true, force: true });
  });

  const capture = async (id: string, path: string): Promise<string> => {
    const r = await h.send('POST', `/api/hook/${id}${path}`, {
      rawHeaders: [
        'Content-Type',
        'application/octet-stream',
        'X-Hub-Signature-256',
        sign(BODY),
        'X-Trace',
        'a',
      ],
      body: BODY,
    });
    expect(r.status).toBe(200);
    return String(r.headers['x-inbox-request-id']);
  };

  it('prints help for the tool and each command', async () => {
    const top = await runCli(['--help']);
    expect(top.code).toBe(0);
    expect(top.stdout).toContain('Usage: inbox <command>');
    for (const cmd of ['forward', 'tail', 'replay']) {
      const r = await runCli([cmd, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`Usage: inbox ${cmd}`);
    }
    for (const cmd of ['forward', 'replay']) {
      const r = await runCli([cmd, '--help']);
      expect(r.stdout).toMatch(/--ca <file> +also trust an https target's certificate/);
      expect(r.stdout).toMatch(/--insecure +do not verify an https target's certificate .*not with --ca/);
    }
    const bad = await runCli(['tail', '--nope']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("Unknown option '--nope'");
  });

  it('forward: creates an endpoint and sends each capture from the CLI to the target, byte for byte', async () => {
    const target = await startTarget();
    const run = startCli(['forward', '--to', `${target.url}/hooks`, '--host', h.url]);
    try {
      await waitUntil(() => /Endpoint (\S+)/.test(run.stdout()), 15_000);
      const id = /Endpoint (\S+)/.exec(run.stdout())?.[1] ?? '';
      expect(run.stdout()).toContain(`/api/hook/${id}`);
      const saved = JSON.parse(await readFile(join(configDir, 'inbox.json'), 'utf8')) as {
        endpoints: Record<string, { host: string; token: string }>;
      };
      expect(saved.endpoints[id]?.host).toBe(h.url);

      // captures from before the stream opened are not forwarded
      await waitUntil(() => run.stdout().includes('Waiting for requests'));
      await capture(id, '/orders?x=1');
      await waitUntil(() => target.received.length === 1);
      const got = target.received[0]!;
      expect(got.method).toBe('POST');
      expect(got.url).toBe('/hooks/orders?x=1');
      expect(got.body.equals(BODY)).toBe(true);
      expect(got.signatureValid).toBe(true);
      expect(header(got.rawHeaders, 'host')).toBe(new URL(target.url).host);
      expect(header(got.rawHeaders, 'x-trace')).toBe('a');
      await waitUntil(() => run.stdout().includes('POST /orders?x=1 → 202'));
    } finally {
      await stopCli(run);
      await target.close();
    }
  });

  it('tail: one line per capture, resuming after --since without duplicates; INBOX_URL names the inbox', async () => {
    const ep = await h.createEndpoint();
    const first = await capture(ep.id, '/a');
    const second = await capture(ep.id, '/b');
    const run = startCli(['tail', ep.id, '--since', first, '--token', ep.token], { INBOX_URL: h.url });
    try {
      await waitUntil(() => run.stdout().includes(second), 15_000);
      const third = await capture(ep.id, '/c');
      await waitUntil(() => run.stdout().includes(third));
      const lines = run.stdout().trim().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toContain(`${second} POST /b ${BODY.length} bytes`);
      expect(lines[1]).toContain(`${third} POST /c`);
      expect(run.stdout()).not.toContain(first);
    } finally {
      await stopCli(run);
    }
  });

  it('tail shows each capture’s signature check: verified, failed (why), not checked', async () => {
    const ep = await h.createEndpoint();
    const plain = await h.createEndpoint();
    const preset = { provider: 'github', secret: SECRET };
    expect(
      (await h.api('PUT', `/api/endpoints/${ep.id}/signature`, { token: ep.token, body: preset })).status,
    ).toBe(200);
    const send = async (id: string, path: string, signature: string): Promise<string> => {
      const r = await h.send('POST', `/api/hook/${id}${path}`, {
        rawHeaders: ['X-Hub-Signature-256', signature],
        body: BODY,
      });
      return (r.json as { requestId: string }).requestId;
    };
    const good = await send(ep.id, '/good', sign(BODY));
    const bad = await send(ep.id, '/bad', sign(Buffer.from('other bytes')));
    const unchecked = await send(plain.id, '/plain', sign(BODY));
    const run = startCli(['tail', ep.id, '--since', '0-0', '--token', ep.token, '--host', h.url]);
    const other = startCli(['tail', plain.id, '--since', '0-0', '--token', plain.token, '--host', h.url]);
    try {
      await waitUntil(() => run.stdout().includes(bad) && other.stdout().includes(unchecked), 15_000);
      const lines = run.stdout().trim().split('\n');
      expect(lines[0]).toMatch(new RegExp(`${good} POST /good ${BODY.length} bytes, signature verified$`));
      expect(lines[1]).toMatch(
        new RegExp(`${bad} POST /bad ${BODY.length} bytes, signature failed \\(mismatch\\)$`),
      );
      expect(other.stdout().trim()).toMatch(/POST \/plain \d+ bytes, signature not checked$/);
    } finally {
      await stopCli(run);
      await stopCli(other);
    }
  });

  it('tail --filter prints only the captures the filter matches, by the API rules', async () => {
    const ep = await h.createEndpoint();
    const send = (path: string, o: { headers?: Record<string, string>; body?: string }) =>
      h.send('POST', `/api/hook/${ep.id}${path}`, o);
    const filter = 'method=POST&path=/orders/*&header=X-Event:order&q=REFUND';
    const run = startCli(['tail', ep.id, '--filter', filter, '--token', ep.token, '--host', h.url]);
    try {
      await waitUntil(async () => {
        await send('/orders/warmup', { headers: { 'x-event': 'order' }, body: 'refund' });
        return run.stdout().includes('/orders/warmup');
      }, 15_000);
      await send('/orders/1', { headers: { 'x-event': 'order' }, body: 'paid' });
      await send('/users/1', { headers: { 'x-event': 'order' }, body: 'refund' });
      await send('/orders/2', { headers: { 'x-event': 'user' }, body: 'refund' });
      await send('/orders/3', { headers: { 'X-Event': 'new-order' }, body: '{"kind":"refund"}' });
      await waitUntil(() => run.stdout().includes('/orders/3'));
      const shown = run
        .stdout()
        .trim()
        .split('\n')
        .map((l) => l.split(' ')[3])
        .filter((p) => p !== '/orders/warmup');
      expect(shown).toEqual(['/orders/3']);
    } finally {
      await stopCli(run);
    }
    const bad = await runCli(['tail', ep.id, '--filter', 'colour=red&forwarding=dead', '--token', ep.token]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      'inbox: --filter: colour: unknown; expected one of method, path, header, query, q, from, to, forwarding\n',
    );
    const outcome = await runCli(['tail', ep.id, '--filter', 'forwarding=dead', '--token', ep.token]);
    expect(outcome.stderr).toBe('inbox: --filter: forwarding: not available in tail\n');
  });

  it('tail resumes across an inbox restart with Last-Event-ID: no gaps, no duplicates', async () => {
    const redis = await startRedis();
    const redisUrl = `redis://${redis.address}`;
    const env = { REDIS_URL: redisUrl, INBOX_PORT: String(await freePort()) };
    let inbox = await startInboxHarness(env);
    // another replica on the same Redis takes a capture while the CLI's inbox is down
    const replica = await startInboxHarness({ REDIS_URL: redisUrl });
    try {
      const ep = await inbox.createEndpoint();
      const send = async (via: InboxHarness, path: string): Promise<string> => {
        const r = await via.send('POST', `/api/hook/${ep.id}${path}`, { body: BODY });
        expect(r.status).toBe(200);
        return String(r.headers['x-inbox-request-id']);
      };
      const tail = startCli(['tail', ep.id, '--since', '0-0', '--token', ep.token, '--host', inbox.url]);
      try {
        const before = await send(inbox, '/before');
        await waitUntil(() => tail.stdout().includes(before), 10_000);
        await inbox.close();
        // the CLI cannot be connected when this is taken: only its Last-Event-ID brings it back
        const during = await send(replica, '/during');
        inbox = await startInboxHarness(env);
        const restarted = inbox;
        // back on its inbox: what it missed can only come from a replay, and what follows arrives live
        await waitUntil(() => restarted.app.hub.liveEndpoints().includes(ep.id), 10_000);
        const after = await send(inbox, '/after');
        await waitUntil(() => tail.stdout().includes(after), 10_000);
        expect(tail.stderr()).toContain('stream interrupted');
        const ids = tail
          .stdout()
          .trim()
          .split('\n')
          .map((line) => line.split(' ')[1]);
        expect(ids).toEqual([before, during, after]);
      } finally {
        await stopCli(tail);
      }
    } finally {
      await replica.close();
      await inbox.close();
      await redis.stop();
    }
  });

  it('tail --json prints full records; --host wins over INBOX_URL', async () => {
    const ep = await h.createEndpoint();
    const first = await capture(ep.id, '/j');
    const deadUrl = `http://127.0.0.1:${await freePort()}`;
    const run = startCli(['tail', ep.id, '--json', '--since', '0-0', '--host', h.url], {
      INBOX_URL: deadUrl,
      INBOX_TOKEN: ep.token,
    });
    try {
      await waitUntil(() => run.stdout().includes('\n'), 15_000);
      const record = JSON.parse(run.stdout().trim()) as { id: string; bodyBase64: string };
      expect(record.id).toBe(first);
      expect(Buffer.from(record.bodyBase64, 'base64').equals(BODY)).toBe(true);
    } finally {
      await stopCli(run);
    }
    const dead = await runCli(['tail', ep.id, '--token', ep.token], { INBOX_URL: deadUrl });
    expect(dead.code).toBe(1);
    expect(dead.stderr).toContain(`inbox: cannot reach the inbox at ${deadUrl}: ECONNREFUSED`);
  });

  it('replay: re-sends a stored request byte for byte and prints the status', async () => {
    const target = await startTarget();
    try {
      const ep = await h.createEndpoint();
      const requestId = await capture(ep.id, '/deploy?ref=main');
      const r = await runCli([
        'replay',
        ep.id,
        '--request',
        requestId,
        '--to',
        target.url,
        '--token',
        ep.token,
        '--host',
        h.url,
      ]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('POST /deploy?ref=main → 202');
      expect(target.received).toHaveLength(1);
      expect(target.received[0]!.url).toBe('/deploy?ref=main');
      expect(target.received[0]!.body.equals(BODY)).toBe(true);
      expect(target.received[0]!.signatureValid).toBe(true);
    } finally {
      await target.close();
    }
  });

  // issue 34: the CLI builds its request as the worker does; `/../../admin` must not climb out of `--to`
  it('replay --to: never sends a capture whose nested path has a dot-dot segment, and says why', async () => {
    const target = await startTarget();
    try {
      const ep = await h.createEndpoint();
      const requestId = await capture(ep.id, '/%2e%2e/..;/admin?drop=all');
      const r = await runCli([
        ...['replay', ep.id, '--request', requestId, '--to', `${target.url}/target`],
        ...['--token', ep.token, '--host', h.url],
      ]);
      expect(`${r.stdout}${r.stderr}`).toContain(
        "→ error: not sent: the nested path has a '..' segment (or %2e%2e, or ..;), which could leave the target's path",
      );
      expect(target.received).toEqual([]);
    } finally {
      await target.close();
    }
  });

  it('fails clearly on an unknown endpoint or request, a bad token, and an unreachable target', async () => {
    const ep = await h.createEndpoint();
    const unknownId = 'AAAAAAAAAAAAAAAAAAAAAA';
    const common = ['--to', 'http://127.0.0.1:9/', '--host', h.url];

    const unknown = await runCli(['replay', unknownId, '--request', '1-0', '--token', ep.token, ...common]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`inbox: endpoint ${unknownId}: the token was refused by ${h.url}`);

    const noRequest = await runCli(['replay', ep.id, '--request', '1-0', '--token', ep.token, ...common]);
    expect(noRequest.code).toBe(1);
    expect(noRequest.stderr).toContain(`inbox: request 1-0 of endpoint ${ep.id}: not found at ${h.url}`);

    const noToken = await runCli(['tail', unknownId, '--host', h.url]);
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain(`inbox: no token for endpoint ${unknownId}`);

    const requestId = await capture(ep.id, '/x');
    const closedPort = await freePort();
    const unreachable = await runCli([
      'replay',
      ep.id,
      '--request',
      requestId,
      '--to',
      `http://127.0.0.1:${closedPort}`,
      '--token',
      ep.token,
      '--host',
      h.url,
    ]);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain('ECONNREFUSED');
  });

  describe('an https target with a certificate from a private CA', () => {
    let certs: TestCertificates;
    let target: Awaited<ReturnType<typeof startTarget>>;
    beforeAll(async () => {
      certs = await createCertificates();
      target = await startTarget(certs);
    });
    afterAll(async () => {
      await target.close();
      await rm(certs.dir, { recursive: true, force: true });
    });

    /** Runs `forward` with `flags`, captures one request and returns the CLI's output once it printed the result. */
    const forwardOne = async (flags: string[]): Promise<{ stdout: string; stderr: string }> => {
      const run = startCli(['forward', '--to', target.url, '--host', h.url, ...flags]);
      try {
        await waitUntil(() => run.stdout().includes('Waiting for requests'), 15_000);
        const id = /Endpoint (\S+)/.exec(run.stdout())?.[1] ?? '';
        await capture(id, '/tls');
        await waitUntil(() => run.stdout().includes('POST /tls →'));
        return { stdout: run.stdout(), stderr: run.stderr() };
      } finally {
        await stopCli(run);
      }
    };

    it('forward: --ca trusts the CA, --insecure skips the check with a warning; without either the delivery fails on the certificate', async () => {
      const before = target.received.length;
      const trusted = await forwardOne(['--ca', certs.caCert]);
      expect(trusted.stdout).toContain('POST /tls → 202');
      expect(trusted.stderr).toBe('');
      expect(target.received).toHaveLength(before + 1);
      expect(target.received.at(-1)!.signatureValid).toBe(true);

      const insecure = await forwardOne(['--insecure']);
      expect(insecure.stdout).toContain('POST /tls → 202');
      expect(insecure.stderr).toBe(
        "inbox: warning: --insecure: the target's TLS certificate is not verified\n",
      );
      expect(target.received).toHaveLength(before + 2);

      const untrusted = await forwardOne([]);
      expect(untrusted.stdout).toContain(
        'POST /tls → error: connection failed (UNABLE_TO_VERIFY_LEAF_SIGNATURE)',
      );
      expect(target.received).toHaveLength(before + 2);
    });

    it('replay: --ca and --insecure reach the target; without them the certificate problem fails the replay', async () => {
      const ep = await h.createEndpoint();
      const requestId = await capture(ep.id, '/again');
      const replay = (flags: string[]) =>
        runCli([
          'replay',
          ep.id,
          '--request',
          requestId,
          '--to',
          target.url,
          '--token',
          ep.token,
          '--host',
          h.url,
          ...flags,
        ]);

      const trusted = await replay(['--ca', certs.caCert]);
      expect(trusted.stderr).toBe('');
      expect(trusted.code).toBe(0);
      expect(trusted.stdout).toContain('POST /again → 202');

      const insecure = await replay(['--insecure']);
      expect(insecure.code).toBe(0);
      expect(insecure.stderr).toContain('inbox: warning: --insecure');

      const untrusted = await replay([]);
      expect(untrusted.code).toBe(1);
      expect(untrusted.stderr).toContain(
        `inbox: replaying to ${target.url} failed: error: connection failed (UNABLE_TO_VERIFY_LEAF_SIGNATURE)`,
      );
      expect(target.received.filter((r) => r.url === '/again')).toHaveLength(2);
    });

    it('--ca trusts a self-signed certificate given as the file', async () => {
      const self = await createSelfSignedCertificate();
      const selfSigned = await startTarget({ serverCert: self.cert, serverKey: self.key });
      try {
        const ep = await h.createEndpoint();
        const requestId = await capture(ep.id, '/self');
        const replay = (flags: string[]) =>
          runCli([
            'replay',
            ep.id,
            '--request',
            requestId,
            '--to',
            selfSigned.url,
            '--token',
            ep.token,
            '--host',
            h.url,
            ...flags,
          ]);
        const untrusted = await replay([]);
        expect(untrusted.code).toBe(1);
        expect(untrusted.stderr).toContain('connection failed (DEPTH_ZERO_SELF_SIGNED_CERT)');
        const trusted = await replay(['--ca', self.cert]);
        expect(trusted.stderr).toBe('');
        expect(trusted.code).toBe(0);
        expect(trusted.stdout).toContain('POST /self → 202');
        expect(selfSigned.received).toHaveLength(1);
      } finally {
        await selfSigned.close();
        await rm(self.dir, { recursive: true, force: true });
      }
    });

    it('--ca and --insecure apply to the target only, never to the inbox', async () => {
      // the https target stands in for an inbox whose certificate only --ca or --insecure would accept
      for (const flags of [['--insecure'], ['--ca', certs.caCert]]) {
        const r = await runCli(['forward', '--to', target.url, '--host', target.url, ...flags]);
        expect(r.code).toBe(1);
        expect(r.stderr).toContain(
          `inbox: cannot reach the inbox at ${target.url}: UNABLE_TO_VERIFY_LEAF_SIGNATURE`,
        );
      }
    });

    it('a bad --ca, or --ca with --insecure, is a usage error naming the flag and the path', async () => {
      const missing = join(configDir, 'missing.pem');
      const notPem = join(configDir, 'not.pem');
      await writeFile(notPem, 'just text\n');
      const cases: [string[], string][] = [
        [['--ca', missing], `inbox: --ca ${missing}: cannot read the file (ENOENT)`],
        [['--ca', configDir], `inbox: --ca ${configDir}: cannot read the file (EISDIR)`],
        [['--ca', notPem], `inbox: --ca ${notPem}: not a PEM certificate`],
        [['--ca', certs.caCert, '--insecure'], 'inbox: --ca and --insecure cannot be used together'],
      ];
      for (const [flags, message] of cases) {
        for (const cmd of [
          ['forward'],
          ['replay', 'AAAAAAAAAAAAAAAAAAAAAA', '--request', '1-0', '--token', 't'],
        ]) {
          const r = await runCli([...cmd, '--to', target.url, '--host', h.url, ...flags]);
          expect(r.code).toBe(2);
          expect(r.stderr).toContain(message);
          expect(r.stdout).toBe('');
        }
      }
    });
  });
});

describe('inbox replay --dead-letters', () => {
  let h: InboxHarness;
  let down: Server;
  let downUrl = '';
  let up = false;
  const hits: string[] = [];
  const ID = 'cli-dead-letters-0123456789';

  beforeAll(async () => {
    configDir = await mkdtemp(join(tmpdir(), 'inbox-cli-'));
    // the memory store: this inbox forwards its managed endpoints itself
    h = await startInboxHarness({
      INBOX_EGRESS_ALLOW_PRIVATE: 'true',
      INBOX_WORKER_CLAIM_IDLE: '300ms',
      INBOX_WORKER_POLL_INTERVAL: '100ms',
      INBOX_WORKER_BREAKER_FAILURES: '1000',
    });
    down = createServer((req, res) => {
      req.resume();
      hits.push(`${up ? 200 : 503} ${req.url ?? ''}`);
      res.writeHead(up ? 200 : 503).end();
    });
    await new Promise<void>((resolve) => down.listen(0, '127.0.0.1', resolve));
    downUrl = `http://127.0.0.1:${(down.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    down.closeAllConnections();
    await new Promise((resolve) => down.close(resolve));
    await h.close();
    await rm(configDir, { recursive: true, force: true });
  });

  it('sends the dead-lettered captures to --to from the CLI, or redrives them in the inbox', async () => {
    await h.app.store.syncManagedEndpoints([
      {
        id: ID,
        name: 'cli',
        resource: 'default/cli',
        retention: { maxRequests: 100, maxAgeMs: 3_600_000 },
        forward: [forwardTarget(downUrl, { timeoutSeconds: 5, maxAttempts: 1 })],
      },
    ]);
    for (const path of ['/one', '/two'])
      await h.send('POST', `/api/hook/${ID}${path}`, {
        rawHeaders: ['X-Hub-Signature-256', sign(BODY)],
        body: BODY,
      });
    const letters = async (): Promise<unknown[]> =>
      (
        (await h.api('GET', `/api/endpoints/${ID}/dead-letters`, { token: ADMIN_TOKEN })).json as {
          deadLetters: unknown[];
        }
      ).deadLetters;
    await waitUntil(async () => (await letters()).length === 2);
    const common = ['--token', ADMIN_TOKEN, '--host', h.url];

    const other = await startTarget();
    try {
      const sent = await runCli(['replay', ID, '--dead-letters', '--to', other.url, ...common]);
      expect(sent.stderr).toBe('');
      expect(sent.code).toBe(0);
      expect(sent.stdout).toContain('POST /one → 202');
      expect(sent.stdout).toContain(`2 dead-lettered captures sent to ${other.url}`);
      expect(other.received.map((r) => r.url)).toEqual(['/one', '/two']);
      expect(other.received.every((r) => r.signatureValid)).toBe(true);
      // sent from the CLI: the inbox's dead letters stay
      expect(await letters()).toHaveLength(2);
    } finally {
      await other.close();
    }

    up = true;
    const redriven = await runCli(['replay', ID, '--dead-letters', ...common]);
    expect(redriven.code).toBe(0);
    expect(redriven.stdout).toContain('redriven 2;');
    // and when they go: now, or when the circuit the failures opened lets them through
    expect(redriven.stdout).toMatch(
      /they are forwarded now|held while its circuit is open, until \S+ \(in \d+ s\)/,
    );
    await waitUntil(() => hits.filter((hit) => hit.startsWith('200')).length === 2);
    expect(await letters()).toEqual([]);
    expect(hits.sort()).toEqual(['200 /one', '200 /two', '503 /one', '503 /two']);

    const both = await runCli(['replay', ID, '--dead-letters', '--request', '1-0', ...common]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--request or --dead-letters, not both');
  });
});
