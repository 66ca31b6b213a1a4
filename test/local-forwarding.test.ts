import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quietLog as log, waitUntil } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperatorApp } from '@portcullis/operator';
import { startInbox, type InboxApp, loadSettings as loadInboxSettings } from '@portcullis/inbox';
import { localServices } from '../hack/local-services.js';
import { startDirectoryOperator } from '../operator/test/directory-operator.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ADMIN_TOKEN = 'admin-token-for-tests-0123456789abcdef';
/** The example InboxEndpoint's id and target (examples/resources/inbox-endpoint.yaml). */
const EXAMPLE_ID = 'payments-hooks-4f9c2a7d1e8b';
const EXAMPLE_TARGET = 'http://127.0.0.1:3000/webhooks';

interface Received {
  method: string;
  url: string;
  body: string;
}

describe('npm start: the example InboxEndpoint forwards from the inbox of local mode (memory store, no worker)', () => {
  let dir: string;
  let target: Server;
  let targetUrl: string;
  const received: Received[] = [];
  let operator: OperatorApp;
  let inbox: InboxApp;

  beforeAll(async () => {
    target = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        received.push({ method: req.method ?? '', url: req.url ?? '', body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/webhooks`;
    // the example file as npm start serves it, its target moved to this test's port
    const example = await readFile(join(root, 'examples/resources/inbox-endpoint.yaml'), 'utf8');
    expect(example).toContain(`url: ${EXAMPLE_TARGET}`);
    dir = await mkdtemp(join(tmpdir(), 'local-forwarding-'));
    await writeFile(join(dir, 'inbox-endpoint.yaml'), example.replace(EXAMPLE_TARGET, targetUrl));

    operator = await startDirectoryOperator(dir);
    const inboxEnv = localServices(root).find((s) => s.name === 'inbox')?.env;
    if (!inboxEnv) throw new Error('npm start runs no inbox');
    inbox = await startInbox(
      loadInboxSettings({
        ...inboxEnv,
        INBOX_HOST: '127.0.0.1',
        INBOX_PORT: '0',
        INBOX_XDS_SERVER_URL: `127.0.0.1:${operator.ports.xds}`,
        INBOX_ADMIN_TOKEN: ADMIN_TOKEN,
      }),
      { log },
    );
  });
  afterAll(async () => {
    await inbox.close();
    await operator.close();
    await new Promise<void>((resolve) => {
      target.closeAllConnections();
      target.close(() => resolve());
    });
    await rm(dir, { recursive: true, force: true });
  });

  it('delivers a capture to the target, nested path and query appended, and records the attempt', async () => {
    const base = `http://127.0.0.1:${inbox.port}`;
    const sent = await fetch(`${base}/api/hook/${EXAMPLE_ID}/charges/ch_1?live=0`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"type":"charge.succeeded"}',
    });
    expect(sent.status).toBe(200);
    const { requestId } = (await sent.json()) as { requestId: string };
    await waitUntil(() => received.length === 1, 10_000);
    expect(received).toEqual([
      { method: 'POST', url: '/webhooks/charges/ch_1?live=0', body: '{"type":"charge.succeeded"}' },
    ]);
    const detail = async () => {
      const r = await fetch(`${base}/api/endpoints/${EXAMPLE_ID}/requests/${requestId}`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      return (await r.json()) as { forwarding: Array<{ target: string; status?: number; outcome: string }> };
    };
    await waitUntil(async () => (await detail()).forwarding.length === 1);
    expect((await detail()).forwarding).toEqual([
      expect.objectContaining({ target: targetUrl, attempt: 1, status: 204, outcome: 'delivered' }),
    ]);
  });
});
