// `npm run peers`: builds the real peers the tests run (kube-apiserver, etcd, the upstream Envoy rate-limit
// service and its client, an xDS control plane on go-control-plane, actionlint) from the pinned Go modules
// beside this file, into .cache/peers/<key>/. Builds only what is missing; prints progress while it builds and the
// folder's absolute path as its last line. Needs Go 1.26 or newer.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PEER_NAMES, peersDir, type PeerName } from '@portcullis/testing/peers';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const GO_MIN = [1, 26] as const;

interface Recipe {
  /** The folder of its Go module under hack/peers. */
  module: string;
  /** The main package to build. */
  pkg: string;
  ldflags?: (module: string) => string[];
}

const RECIPES: Record<PeerName, Recipe> = {
  'kube-apiserver': {
    module: 'kube-apiserver',
    pkg: 'k8s.io/kubernetes/cmd/kube-apiserver',
    ldflags: kubeVersion,
  },
  etcd: { module: 'etcd', pkg: 'go.etcd.io/etcd/server/v3' },
  'ratelimit-upstream': {
    module: 'ratelimit-upstream',
    pkg: 'github.com/envoyproxy/ratelimit/src/service_cmd',
  },
  'ratelimit-upstream-client': {
    module: 'ratelimit-upstream',
    pkg: 'github.com/envoyproxy/ratelimit/src/client_cmd',
  },
  'xds-control-plane': { module: 'xds-control-plane', pkg: '.' },
  actionlint: { module: 'actionlint', pkg: 'github.com/rhysd/actionlint/cmd/actionlint' },
};

/** The version ldflags Kubernetes' own build sets, so /version and `kubectl version` tell the real version. */
function kubeVersion(module: string): string[] {
  const version = requiredVersion(module, 'k8s.io/kubernetes');
  const [, major, minor] = /^v(\d+)\.(\d+)\./.exec(version) ?? [];
  if (!major || !minor) throw new Error(`k8s.io/kubernetes ${version}: not a release version`);
  const pkg = 'k8s.io/component-base/version';
  return [
    `-X ${pkg}.gitVersion=${version}`,
    `-X ${pkg}.gitMajor=${major}`,
    `-X ${pkg}.gitMinor=${minor}`,
    `-X ${pkg}.gitTreeState=clean`,
  ];
}

function requiredVersion(module: string, path: string): string {
  const goMod = readFileSync(join(HERE, module, 'go.mod'), 'utf8');
  const match = new RegExp(`^\\s*${path.replaceAll('.', '\\.')} (v\\S+)`, 'm').exec(goMod);
  if (!match?.[1]) throw new Error(`hack/peers/${module}/go.mod does not require ${path}`);
  return match[1];
}

function say(line: string): void {
  process.stderr.write(`peers: ${line}\n`);
}

function checkGo(): void {
  const r = spawnSync('go', ['env', 'GOVERSION'], { encoding: 'utf8' });
  // on a spawn error (no go on PATH) stdout is null, whatever the types say
  const version = ((r.stdout as string | null) ?? '').trim();
  const found = r.error ? 'no `go` on PATH' : `found ${version || 'no version'}`;
  const [, major, minor] = /^go(\d+)\.(\d+)/.exec(version) ?? [];
  const ok =
    major !== undefined &&
    minor !== undefined &&
    (Number(major) > GO_MIN[0] || (Number(major) === GO_MIN[0] && Number(minor) >= GO_MIN[1]));
  if (!ok) {
    throw new Error(
      `the tests' real peers are built with Go ${GO_MIN.join('.')} or newer (${found}); ` +
        'install it from https://go.dev/dl/ or your package manager, with the Go module proxy reachable, then run npm run peers',
    );
  }
}

async function build(name: PeerName, out: string): Promise<void> {
  const recipe = RECIPES[name];
  const dir = join(HERE, recipe.module);
  const ldflags = ['-s', '-w', ...(recipe.ldflags?.(recipe.module) ?? [])].join(' ');
  const partial = `${out}.${process.pid}`;
  const args = ['build', '-trimpath', '-ldflags', ldflags, '-o', partial, recipe.pkg];
  const started = Date.now();
  say(`building ${name} (${recipe.pkg}, hack/peers/${recipe.module})`);
  const ticker = setInterval(
    () => say(`  still building ${name} (${Math.round((Date.now() - started) / 1000)} s)`),
    30_000,
  );
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn('go', args, {
        cwd: dir,
        stdio: ['ignore', 'inherit', 'inherit'],
        // -mod=readonly: go.mod and go.sum are the pins; a build never edits them
        env: {
          ...process.env,
          CGO_ENABLED: '0',
          GOFLAGS: '-mod=readonly -buildvcs=false',
          GOTOOLCHAIN: 'local',
        },
      });
      child.once('error', reject);
      child.once('exit', resolve);
    });
    if (code !== 0)
      throw new Error(`go ${args.join(' ')} (in hack/peers/${recipe.module}) failed with ${code}`);
    renameSync(partial, out);
  } finally {
    clearInterval(ticker);
    rmSync(partial, { force: true });
  }
  say(`built ${name} in ${Math.round((Date.now() - started) / 1000)} s`);
}

async function main(): Promise<void> {
  const dir = peersDir();
  if (PEER_NAMES.every((name) => existsSync(join(dir, name)))) {
    process.stdout.write(`${dir}\n`);
    return;
  }
  checkGo();
  // built into a sibling folder renamed at the end, so the keyed folder only ever holds the complete set
  const partial = `${dir}.partial`;
  mkdirSync(partial, { recursive: true });
  const started = Date.now();
  for (const name of PEER_NAMES) {
    if (!existsSync(join(partial, name))) await build(name, join(partial, name));
  }
  if (!existsSync(dir)) renameSync(partial, dir);
  else rmSync(partial, { recursive: true, force: true });
  // sets built for earlier pins are a few hundred MB each and nothing reads them again
  for (const old of readdirSync(dirname(dir))) {
    if (old !== basename(dir)) rmSync(join(dirname(dir), old), { recursive: true, force: true });
  }
  say(`all peers built in ${Math.round((Date.now() - started) / 1000)} s`);
  process.stdout.write(`${dir}\n`);
}

main().catch((e: unknown) => {
  say(e instanceof Error ? e.message : String(e));
  process.exitCode = 1;
});
