import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

// Upstream's own example and test configuration, read from the module the peer was built from (the Go
// module cache), never copied here.

const PEER_MODULE = join(import.meta.dirname, '../../../../hack/peers/ratelimit-upstream');

/** Where `go` unpacked github.com/envoyproxy/ratelimit at the peer's pinned version. */
export function upstreamModuleDir(): string {
  return execFileSync('go', ['list', '-m', '-f', '{{.Dir}}', 'github.com/envoyproxy/ratelimit'], {
    cwd: PEER_MODULE,
    encoding: 'utf8',
  }).trim();
}

/** The folders of rate-limit configuration files in upstream's module. */
const CONFIG_DIRS = [
  'test/config',
  'test/integration/runtime/current/ratelimit/config',
  'examples/ratelimit/config',
];

export interface UpstreamFile {
  /** Relative to the module, for messages. */
  name: string;
  text: string;
}

export function readUpstreamConfigFiles(): UpstreamFile[] {
  const root = upstreamModuleDir();
  return CONFIG_DIRS.flatMap((dir) =>
    readdirSync(join(root, dir))
      .filter((f) => f.endsWith('.yaml'))
      .sort()
      .map((f) => ({ name: `${dir}/${f}`, text: readFileSync(join(root, dir, f), 'utf8') })),
  );
}

interface YamlDescriptor {
  key?: unknown;
  value?: unknown;
  rate_limit?: unknown;
  descriptors?: unknown;
}

/**
 * One request descriptor per rule of a loaded file, root to rule: the rule's value, or a made-up one where
 * the rule has none; a trailing `*` is completed, so that wildcards match.
 */
export function descriptorsOf(text: string): { domain: string; descriptors: Array<Array<[string, string]>> } {
  const doc = parse(text) as { domain?: unknown; descriptors?: unknown };
  const out: Array<Array<[string, string]>> = [];
  const walk = (list: unknown, path: Array<[string, string]>): void => {
    if (!Array.isArray(list)) return;
    for (const raw of list as YamlDescriptor[]) {
      const key = String(raw.key);
      const value = typeof raw.value === 'string' ? raw.value.replace(/\*$/, 'matched') : `any-${key}`;
      const here: Array<[string, string]> = [...path, [key, value]];
      out.push(here);
      walk(raw.descriptors, here);
    }
  };
  walk(doc.descriptors, []);
  return { domain: String(doc.domain), descriptors: out };
}
