import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROTO_FILES, createMessageCodec } from '@portcullis/protos';
import { createSotwClient, type ReceivedResource, type SotwClient } from '@portcullis/xds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperatorApp } from '../src/app.js';
import { waitUntil, quietLog as log } from '@portcullis/testing';
import { startDirectoryOperator } from './directory-operator.js';

const rlc = createMessageCodec(PROTO_FILES.rateLimitConfig, 'ratelimit.config.ratelimit.v3.RateLimitConfig');
const TYPE = rlc.typeUrl;

const manifest = (name: string, domain: string, rpu: number | string) => `apiVersion: portcullis.dev/v1alpha1
kind: RateLimitConfig
metadata:
  name: ${name}
  namespace: demo
spec:
  domain: ${domain}
  descriptors:
    - key: k
      rate_limit: {unit: minute, requests_per_unit: ${rpu}}
`;

describe('operator in directory mode', () => {
  let dir: string;
  let app: OperatorApp;
  let client: SotwClient;
  let latest: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'operator-dir-'));
    await writeFile(join(dir, 'a.yaml'), manifest('a', 'alpha', 5));
    await writeFile(join(dir, 'other.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ignored}\n');
    app = await startDirectoryOperator(dir);
    client = createSotwClient({
      serverUrl: `127.0.0.1:${app.ports.xds}`,
      nodeId: 'test',
      typeUrls: [TYPE],
      retryIntervalMs: 100,
      log,
      onResources: (_t, _v, resources: readonly ReceivedResource[]) => {
        latest = resources.map((r) => rlc.decode(r.value));
      },
    });
    client.start();
    await client.firstUpdate();
  });
  afterAll(async () => {
    await client.close();
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves the RateLimitConfigs it finds, ignoring other objects', () => {
    expect(latest).toEqual([
      {
        name: 'demo/a',
        domain: 'alpha',
        descriptors: [{ key: 'k', rateLimit: { unit: 'MINUTE', requestsPerUnit: 5 } }],
      },
    ]);
  });

  it('follows edits and new files, and keeps the last good generation of a broken one', async () => {
    await writeFile(join(dir, 'a.yaml'), manifest('a', 'alpha', 6) + '---\n' + manifest('b', 'beta', 7));
    await waitUntil(() => latest.length === 2);
    expect(latest.map((m) => [m.name, m.domain])).toEqual([
      ['demo/a', 'alpha'],
      ['demo/b', 'beta'],
    ]);
    await writeFile(join(dir, 'a.yaml'), manifest('a', 'alpha', 'lots') + '---\n' + manifest('b', 'beta', 8));
    await waitUntil(() => JSON.stringify(latest).includes('"requestsPerUnit":8'));
    expect(JSON.stringify(latest)).toContain('"requestsPerUnit":6');
  });

  it('notices files replaced by a rename, again and again, as editors save them', async () => {
    for (const rpu of [21, 22, 23]) {
      const staged = join(dir, '..', `staged-${rpu}.yaml`);
      await writeFile(staged, manifest('a', 'alpha', rpu));
      await rename(staged, join(dir, 'a.yaml'));
      await waitUntil(() => JSON.stringify(latest).includes(`"requestsPerUnit":${rpu}`));
    }
  });

  it('reports readiness and metrics', async () => {
    const ready = await fetch(`http://127.0.0.1:${app.ports.health}/readyz`);
    expect(await ready.json()).toEqual({ status: 'ready', leader: true });
    const metrics = await (await fetch(`http://127.0.0.1:${app.ports.metrics}/metrics`)).text();
    expect(metrics).toMatch(/^portcullis_operator_xds_clients\{component="operator"\} 1$/m);
    expect(metrics).toMatch(
      /^portcullis_operator_reconciles_total\{kind="RateLimitConfig",result="rejected",component="operator"\} [1-9]/m,
    );
    expect(metrics).toMatch(
      /^portcullis_operator_xds_acks_total\{type="RateLimitConfig",component="operator"\} [1-9]/m,
    );
    expect(metrics).toMatch(
      /^portcullis_operator_xds_responses_total\{type="RateLimitConfig",component="operator"\} [1-9]/m,
    );
    expect(metrics).toMatch(
      /^portcullis_operator_xds_response_bytes_total\{type="RateLimitConfig",component="operator"\} [1-9]\d{2}/m,
    );
  });
});
