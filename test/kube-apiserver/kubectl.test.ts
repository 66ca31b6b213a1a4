import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_CRD_DIR, FIXTURE_MANIFEST_DIR, rateLimitConfigs } from './fixtures.js';
import { startKubeApiServer, type KubeApiServer } from './index.js';

/** The real kubectl (v1.32, client-side apply) against the server, one scenario in order. */

const run = promisify(execFile);
let server: KubeApiServer;

beforeAll(async () => {
  server = await startKubeApiServer();
});
afterAll(() => server.close());

async function kubectl(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, KUBECONFIG: server.kubeconfigPath, KUBECACHEDIR: server.cacheDir };
  try {
    const { stdout, stderr } = await run('kubectl', args, { env, timeout: 20_000 });
    return { code: 0, stdout, stderr };
  } catch (e: unknown) {
    const failed = e as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe('kubectl', () => {
  it('installs CRDs with apply', async () => {
    const result = await kubectl('apply', '-f', FIXTURE_CRD_DIR);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(
      'customresourcedefinition.apiextensions.k8s.io/edgeclasses.example.portcullis.dev created\n' +
        'customresourcedefinition.apiextensions.k8s.io/ratelimitconfigs.example.portcullis.dev created\n',
    );
  });

  it('applies custom resources and built-ins, then reports them unchanged', async () => {
    const first = await kubectl('apply', '-f', FIXTURE_MANIFEST_DIR);
    expect(first.stderr).toBe('');
    expect(first.stdout).toBe(
      'ratelimitconfig.example.portcullis.dev/checkout created\n' +
        'edgeclass.example.portcullis.dev/default-edge created\n' +
        'secret/upstream-credentials created\n' +
        'service/ratelimit created\n',
    );
    const again = await kubectl('apply', '-f', FIXTURE_MANIFEST_DIR);
    expect(again.stdout).toContain('ratelimitconfig.example.portcullis.dev/checkout unchanged\n');
    expect(again.stdout).toContain('service/ratelimit unchanged\n');
  });

  it('prints the printer columns for a short name', async () => {
    await rateLimitConfigs(server.kubeConfig()).patchStatus('checkout', {
      status: { ruleCount: 1, conditions: [{ type: 'Ready', status: 'True' }] },
    });
    const { stdout } = await kubectl('get', 'rlc');
    const [header, row] = stdout.trimEnd().split('\n');
    expect(header?.split(/\s+/)).toEqual(['NAME', 'DOMAIN', 'MODE', 'READY', 'AGE']);
    expect(row).toMatch(/^checkout\s+checkout\s+enforce\s+True\s+\d+s$/);
    const wide = await kubectl('get', 'rlc', '-o', 'wide');
    expect(wide.stdout.split('\n')[0]?.split(/\s+/)).toEqual([
      'NAME',
      'DOMAIN',
      'MODE',
      'READY',
      'RULES',
      'AGE',
    ]);
  });

  it('returns the stored object with -o json', async () => {
    const { stdout } = await kubectl('get', 'ratelimitconfig', 'checkout', '-o', 'json');
    const obj = JSON.parse(stdout) as {
      metadata: { annotations: Record<string, string>; generation: number };
      spec: object;
    };
    expect(Object.keys(obj.metadata.annotations)).toEqual([
      'kubectl.kubernetes.io/last-applied-configuration',
    ]);
    expect(obj.metadata.generation).toBe(1);
    expect(obj.spec).toMatchObject({ domain: 'checkout', mode: 'enforce', failureModeDeny: false });
  });

  it('shows validation failures as the real server words them', async () => {
    const path = join(server.cacheDir, '..', 'invalid.yaml');
    await writeFile(
      path,
      [
        'apiVersion: example.portcullis.dev/v1alpha1',
        'kind: RateLimitConfig',
        'metadata: {name: invalid}',
        'spec:',
        '  domain: invalid',
        '  domian: typo',
        '  descriptors: [{key: a, rateLimit: {unit: minute, requestsPerUnit: 1}}]',
      ].join('\n'),
    );
    const typo = await kubectl('apply', '-f', path);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toBe(
      `Error from server (BadRequest): error when creating "${path}": RateLimitConfig in version "v1alpha1" cannot be handled as a RateLimitConfig: strict decoding error: unknown field "spec.domian"\n`,
    );
  });

  it('deletes what it applied', async () => {
    const { stdout } = await kubectl('delete', '-f', FIXTURE_MANIFEST_DIR);
    expect(stdout).toBe(
      'ratelimitconfig.example.portcullis.dev "checkout" deleted\n' +
        'edgeclass.example.portcullis.dev "default-edge" deleted\n' +
        'secret "upstream-credentials" deleted\n' +
        'service "ratelimit" deleted\n',
    );
    const left = await kubectl('get', 'rlc,ec,secrets,svc', '-A');
    expect(left.stderr).toBe('No resources found\n');
  });
});
