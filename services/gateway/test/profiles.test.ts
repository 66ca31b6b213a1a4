import { profilePortProblems } from '@portcullis/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from './harness.js';

describe('gateway /debug/pprof/ on GATEWAY_DEBUG_PORT', () => {
  let h: GatewayHarness | undefined;
  afterEach(async () => {
    await h?.close();
  });

  it('is off unless the port is set, and never on the public port', async () => {
    h = await startGatewayHarness({});
    expect(h.app.profilePort).toBeUndefined();
    expect((await h.request('GET', '/debug/pprof/')).status).toBe(404);
  });

  it('serves a V8 CPU profile and runtime figures on its own port, none on the public port', async () => {
    h = await startGatewayHarness({ GATEWAY_DEBUG_PORT: '0' });
    expect(
      await profilePortProblems({ profileUrl: `http://127.0.0.1:${h.app.profilePort}`, publicUrl: h.url }),
    ).toEqual([]);
  });
});
