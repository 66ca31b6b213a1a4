import { createHmac } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quietLog as log, waitUntil } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperatorApp } from '@portcullis/operator';
import { startInbox, type InboxApp, loadSettings as loadInboxSettings } from '@portcullis/inbox';
import { startDirectoryOperator } from '../operator/test/directory-operator.js';

// An InboxEndpoint's spec.response and spec.signature, end to end in directory mode: the operator validates
// and serves them over xDS (the signature's secret read from a Secret manifest beside it), the inbox applies
// them: the receive URL answers Slack's URL verification with the challenge, and checks GitHub's signature.

const SLACK_ID = 'slack-events-7c1d9e2f4a6b8c0d';
const RESOURCE = `apiVersion: portcullis.dev/v1alpha1
kind: InboxEndpoint
metadata: { name: slack, namespace: default }
spec:
  endpointId: ${SLACK_ID}
  displayName: Slack events
  response:
    headers: [{ name: Content-Type, value: text/plain }]
    body: '{{body.challenge}}'
`;

const GITHUB_ID = 'github-hooks-3a5c7e9b1d3f5a7c';
const signed = (secret: string) => `apiVersion: portcullis.dev/v1alpha1
kind: InboxEndpoint
metadata: { name: github, namespace: team }
spec:
  endpointId: ${GITHUB_ID}
  signature: { provider: github, secretRef: { name: github-webhook, key: secret } }
---
apiVersion: v1
kind: Secret
metadata: { name: github-webhook, namespace: team }
data: { secret: ${Buffer.from(secret).toString('base64')} }
`;

describe('InboxEndpoints with a response and a signature, through the operator to the inbox', () => {
  let dir: string;
  let operator: OperatorApp;
  let inbox: InboxApp;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'issue-19-response-'));
    await writeFile(join(dir, 'slack.yaml'), RESOURCE);
    await writeFile(join(dir, 'github.yaml'), signed('first-secret'));
    operator = await startDirectoryOperator(dir);
    inbox = await startInbox(
      loadInboxSettings({
        INBOX_HOST: '127.0.0.1',
        INBOX_PORT: '0',
        INBOX_XDS_SERVER_URL: `127.0.0.1:${operator.ports.xds}`,
      }),
      { log },
    );
  });
  afterAll(async () => {
    await inbox.close();
    await operator.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("answers with the resource's response, the challenge filled in, after storing the capture", async () => {
    await waitUntil(async () => (await inbox.store.getEndpoint(SLACK_ID))?.response !== undefined);
    const r = await fetch(`http://127.0.0.1:${inbox.port}/api/hook/${SLACK_ID}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"token":"Jhj5dZrVaK7ZwHHjRyZWjbDl","challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P","type":"url_verification"}',
    });
    expect([r.status, r.headers.get('content-type'), await r.text()]).toEqual([
      200,
      'text/plain',
      '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
    ]);
    expect(await inbox.store.countCaptures(SLACK_ID)).toBe(1);
  });

  it("checks each capture against the secret in the Secret manifest, and follows the manifest's edits", async () => {
    const body = '{"zen":"Keep it logically awesome."}';
    const status = async (secret: string) => {
      const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
      const r = await fetch(`http://127.0.0.1:${inbox.port}/api/hook/${GITHUB_ID}`, {
        method: 'POST',
        headers: { 'x-hub-signature-256': signature },
        body,
      });
      const { requestId } = (await r.json()) as { requestId: string };
      return (await inbox.store.getCapture(GITHUB_ID, requestId))?.signature?.status ?? 'not_checked';
    };
    await waitUntil(async () => (await status('first-secret')) === 'verified');
    expect(await status('second-secret')).toBe('failed');
    await writeFile(join(dir, 'github.yaml'), signed('second-secret'));
    await waitUntil(async () => (await status('second-secret')) === 'verified');
    expect(await status('first-secret')).toBe('failed');
  });
});
