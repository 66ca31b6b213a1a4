import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { profilePortProblems } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDirectoryOperator } from './directory-operator.js';

describe('operator /debug/pprof/ on OPERATOR_DEBUG_PORT', () => {
  let dir: string;
  const start = (env: Record<string, string>) => startDirectoryOperator(dir, { env });
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'operator-profiles-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is off unless the port is set, and never on the metrics or health port', async () => {
    const app = await start({});
    try {
      expect(app.profilePort).toBeUndefined();
      for (const port of [app.ports.metrics, app.ports.health]) {
        expect((await fetch(`http://127.0.0.1:${port}/debug/pprof/`)).status).toBe(404);
      }
    } finally {
      await app.close();
    }
  });

  it('serves a V8 CPU profile and runtime figures on its own port, none on the metrics port', async () => {
    const app = await start({ OPERATOR_DEBUG_PORT: '0' });
    try {
      expect(
        await profilePortProblems({
          profileUrl: `http://127.0.0.1:${app.profilePort}`,
          publicUrl: `http://127.0.0.1:${app.ports.metrics}`,
        }),
      ).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
