// The real peers the tests run, built from the pinned Go modules under hack/peers by `npm run peers` into
// .cache/peers/<key>/, where the key hashes what decides the binaries (go.mod and go.sum pins, our own Go
// source, the build recipe in build.ts): a changed pin is a new folder, never a stale binary.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PEER_NAMES = [
  'kube-apiserver',
  'etcd',
  'ratelimit-upstream',
  'ratelimit-upstream-client',
  'xds-control-plane',
  'actionlint',
] as const;
export type PeerName = (typeof PEER_NAMES)[number];

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const PEERS_SOURCE = join(ROOT, 'hack/peers');

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? listFiles(join(dir, e.name)) : [join(dir, e.name)]))
    .filter((path) => /(\/go\.mod|\/go\.sum|\.go|\/build\.ts)$/.test(path))
    .sort();
}

let dir: string | undefined;

/** The folder the current pins build into (it may not exist yet); hashed once per process. */
export function peersDir(): string {
  if (dir === undefined) {
    const hash = createHash('sha256');
    for (const file of listFiles(PEERS_SOURCE)) {
      hash.update(relative(PEERS_SOURCE, file)).update('\0').update(readFileSync(file)).update('\0');
    }
    dir = join(ROOT, '.cache/peers', hash.digest('hex').slice(0, 16));
  }
  return dir;
}

/** The absolute path of a built peer; throws, saying what to run, when it has not been built. */
export function peerPath(name: PeerName): string {
  const path = join(peersDir(), name);
  if (!existsSync(path)) throw new Error(`${name} is not built for the current pins: run npm run peers`);
  return path;
}
