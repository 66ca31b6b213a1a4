import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quietLog as log, waitUntil } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOperator, type OperatorApp } from '../operator/src/app.js';
import { loadSettings as loadOperatorSettings } from '../operator/src/settings.js';
import { startInbox, type InboxApp } from '../services/inbox/src/app.js';
import { loadSettings as loadInboxSettings } from '../services/inbox/src/settings.js';

// An InboxEndpoint's spec.response, end to end: the operator validates and serves it over xDS, the inbox
// applies it, and the receive URL answers Slack's URL verification with the challenge.

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

describe('an InboxEndpoint with a response, through the operator to the inbox', () => {
  let dir: string;
  let operator: OperatorApp;
  let inbox: InboxApp;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'issue-19-response-'));
    await writeFile(join(dir, 'slack.yaml'), RESOURCE);
    operator = await startOperator(
      loadOperatorSettings({
        OPERATOR_SOURCE: 'directory',
        OPERATOR_MANIFESTS_DIR: dir,
        XDS_HOST: '127.0.0.1',
        XDS_PORT: '0',
        HEALTH_PORT: '0',
        METRICS_PORT: '0',
      }),
      { log },
    );
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
});
