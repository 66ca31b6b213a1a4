import { createRateLimitClient, type Decision, type RateLimitClient } from '@portcullis/ratelimit-client';
import { waitUntil, quietLog } from '@portcullis/testing';
import { buildServiceDiscovery, createSotwServer, type SotwServer } from '@portcullis/xds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRlsServer, type RlsServer } from './rls-server.js';

/** The service discovery the operator serves, for one service on local ports. */
function serveDiscovery(xds: SotwServer, service: string, ports: readonly number[]): void {
  const resources = buildServiceDiscovery(
    new Map([[service, ports.map((port) => ({ address: '127.0.0.1', port }))]]),
  );
  for (const [typeUrl, list] of resources) xds.setResources(typeUrl, list);
}

describe('an xds:///ratelimit target resolved through a SotwServer', () => {
  let xds: SotwServer;
  let replicas: RlsServer[];
  let client: RateLimitClient;

  beforeAll(async () => {
    replicas = [await startRlsServer(), await startRlsServer()];
    xds = createSotwServer({ host: '127.0.0.1', port: 0, log: quietLog, shutdownGraceMs: 100 });
    await xds.start();
    serveDiscovery(
      xds,
      'ratelimit',
      replicas.map((r) => r.port),
    );
    client = createRateLimitClient({
      target: 'xds:///ratelimit',
      xds: { serverUri: `127.0.0.1:${xds.port}`, nodeId: 'gateway-test' },
      timeoutMs: 5000,
      failureMode: 'deny',
      log: quietLog,
    });
  });
  afterAll(async () => {
    client.close();
    await xds.close();
    for (const r of replicas) r.stop();
  });

  it('decides through the endpoints the xDS server handed out, balancing over both', async () => {
    const decisions: Decision[] = [];
    // round robin picks among the subchannels that are ready, so the second joins a moment later
    await waitUntil(async () => {
      decisions.push(
        await client.decide({
          domain: 'web',
          descriptors: [{ entries: [{ key: 'user', value: 'blocked' }] }],
        }),
      );
      return replicas.every((r) => r.requests.length > 0);
    });
    expect(decisions.every((d) => d.overLimit && !d.allowed && !d.failedOpen)).toBe(true);
    expect(xds.clients().map((c) => c.nodeId)).toEqual(['gateway-test']);
    expect(client.stats()).toMatchObject({ calls: decisions.length, failures: 0 });
  });
});
