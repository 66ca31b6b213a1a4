import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import {
  checkAnswer,
  checkRawAnswer,
  createHttpClient,
  describeRequest,
  fuzz,
  fuzzTimeoutMs,
  httpPath,
  httpRequest,
  rawRequestBytes,
  type HttpClient,
} from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperatorApp } from '../src/app.js';
import { startDirectoryOperator } from './directory-operator.js';

// issue 15: the operator's health and metrics ports under generated requests from a fixed seed: never a
// 5xx (finding 13 was a 500 to an unknown method), never a stack or an internal name in a body.

const PREFIXES = ['/', '/healthz', '/readyz', '/metrics'];

describe('operator ports fuzz (issue 15)', { timeout: fuzzTimeoutMs() }, () => {
  let dir: string;
  let app: OperatorApp;
  let health: HttpClient;
  let metrics: HttpClient;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'operator-fuzz-'));
    await writeFile(
      join(dir, 'a.yaml'),
      `apiVersion: portcullis.dev/v1alpha1
kind: RateLimitConfig
metadata: {name: a, namespace: demo}
spec:
  domain: alpha
  descriptors:
    - key: k
      rate_limit: {unit: minute, requests_per_unit: 5}
`,
    );
    app = await startDirectoryOperator(dir);
    health = createHttpClient(app.ports.health);
    metrics = createHttpClient(app.ports.metrics);
  });
  afterAll(async () => {
    health.close();
    metrics.close();
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers any method, path, headers and body on either port without a 5xx', async () => {
    await fuzz(
      fc.tuple(fc.constantFrom('health', 'metrics'), httpRequest(PREFIXES)),
      async ([port, spec]) =>
        checkAnswer(await (port === 'health' ? health : metrics).send(spec), { sent: describeRequest(spec) }),
      { numRuns: 800 },
    );
  });

  it('answers malformed HTTP with a 4xx or a close', async () => {
    await fuzz(
      fc.tuple(fc.constantFrom(app.ports.health, app.ports.metrics), rawRequestBytes(httpPath(PREFIXES))),
      ([port, bytes]) => checkRawAnswer(port, bytes),
      { numRuns: 200 },
    );
  });

  it('still reports healthy, ready and its metrics afterwards', async () => {
    expect((await health.send({ method: 'GET', path: '/healthz' })).status).toBe(200);
    expect((await health.send({ method: 'GET', path: '/readyz' })).status).toBe(200);
    const m = await metrics.send({ method: 'GET', path: '/metrics' });
    expect([m.status, m.body]).toEqual([200, expect.stringContaining('# HELP') as unknown]);
  });
});
