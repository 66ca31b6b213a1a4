import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { CpuProfile } from '@portcullis/testing';
import { SERVICE_BUNDLE_DIR } from './bundle-dir.js';

const REPO_URL = new URL('../../', import.meta.url).href;
const BUNDLE_URL = pathToFileURL(`${SERVICE_BUNDLE_DIR}/`).href;

export type CallFrame = CpuProfile['nodes'][number]['callFrame'];

/** Where a frame's code comes from; `name` is a package, a workspace or bundle, node core, or a V8 entry. */
export interface Origin {
  kind: 'own' | 'package' | 'node' | 'native' | 'other';
  name: string;
}

export interface FrameShare {
  label: string;
  /** Share of the busy samples, 0 to 1. */
  share: number;
}

export interface ProfileSummary {
  /** False when no sample fell in the window and the whole profile (start-up included) was read. */
  windowed: boolean;
  /** Busy samples (not `(idle)`) in the window; the shares below are of these. */
  busySamples: number;
  /** Share of all samples in the window that were `(idle)`. */
  idleShare: number;
  /** Self time by where the code comes from: a package, a workspace, node core, GC. */
  byOrigin: FrameShare[];
  /** Self time by function. */
  bySelf: FrameShare[];
  /** Time in a function or what it called, for the repository's own functions. */
  byTotalOwnCode: FrameShare[];
}

export interface WindowUs {
  /** `process.hrtime` in microseconds: on Linux the clock of the profile's timestamps (CLOCK_MONOTONIC). */
  fromUs: number;
  toUs: number;
}

/** Reads the one `.cpuprofile` in `dir`. Throws when there is none. */
export async function readCpuProfile(dir: string): Promise<{ file: string; profile: CpuProfile }> {
  const name = (await readdir(dir)).find((f) => f.endsWith('.cpuprofile'));
  if (!name) throw new Error(`no .cpuprofile in ${dir}`);
  const file = join(dir, name);
  return { file, profile: JSON.parse(await readFile(file, 'utf8')) as CpuProfile };
}

/** Microseconds on the clock of `--cpu-prof` timestamps, for `WindowUs`. */
export function nowUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/**
 * The node ids of the samples taken within `window`, or of all samples when none was (as on a clock other
 * than the profile's); `windowed` tells which.
 */
export function samplesInWindow(
  profile: CpuProfile,
  window: WindowUs,
): { windowed: boolean; samples: number[] } {
  let at = profile.startTime;
  const picked = profile.samples.filter((_, i) => {
    at += profile.timeDeltas[i] ?? 0;
    return at >= window.fromUs && at <= window.toUs;
  });
  return picked.length > 0
    ? { windowed: true, samples: picked }
    : { windowed: false, samples: profile.samples };
}

/**
 * Where the samples taken within `window` went (all samples when none fall in it, as on a clock other than
 * the profile's): `top` entries per list.
 */
export function summarizeCpuProfile(
  profile: CpuProfile,
  o: { window: WindowUs; top: number },
): ProfileSummary {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parents = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parents.set(c, n.id);
  const { windowed, samples: picked } = samplesInWindow(profile, o.window);

  const self = new Map<string, number>();
  const origin = new Map<string, number>();
  const total = new Map<string, number>();
  let idle = 0;
  for (const id of picked) {
    const node = nodes.get(id);
    if (!node) continue;
    if (node.callFrame.functionName === '(idle)') {
      idle += 1;
      continue;
    }
    const key = labelOf(node.callFrame);
    self.set(key, (self.get(key) ?? 0) + 1);
    const from = originOf(node.callFrame).name;
    origin.set(from, (origin.get(from) ?? 0) + 1);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
      const frame = nodes.get(at)?.callFrame;
      if (frame && isOwnCode(frame.url)) seen.add(labelOf(frame));
    }
    for (const k of seen) total.set(k, (total.get(k) ?? 0) + 1);
  }
  const busy = picked.length - idle;
  const rank = (m: Map<string, number>): FrameShare[] =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, o.top)
      .map(([label, n]) => ({ label, share: busy > 0 ? n / busy : 0 }));
  return {
    windowed,
    busySamples: busy,
    idleShare: picked.length > 0 ? idle / picked.length : 0,
    byOrigin: rank(origin),
    bySelf: rank(self),
    byTotalOwnCode: rank(total),
  };
}

function isOwnCode(url: string): boolean {
  return url.startsWith(BUNDLE_URL) || (url.startsWith(REPO_URL) && !url.includes('/node_modules/'));
}

/**
 * `name path:line`, the path relative to the repository or to `node_modules`; no line for TypeScript, whose
 * profile lines are those of tsx's output.
 */
export function labelOf(frame: CallFrame): string {
  const name = frame.functionName || '(anonymous)';
  if (frame.url === '') return name;
  const path = shortPath(frame.url);
  return path.endsWith('.ts') ? `${name} ${path}` : `${name} ${path}:${frame.lineNumber + 1}`;
}

/** A bench-built service bundle reads as `dist/<entry>.mjs`, where `npm run build:dist` writes it. */
function shortPath(url: string): string {
  if (!url.startsWith('file:')) return url;
  if (url.startsWith(BUNDLE_URL)) return `dist/${url.slice(BUNDLE_URL.length)}`;
  const path = fileURLToPath(url);
  const inModules = path.lastIndexOf('/node_modules/');
  if (inModules >= 0) return path.slice(inModules + '/node_modules/'.length);
  const root = fileURLToPath(REPO_URL);
  return path.startsWith(root) ? path.slice(root.length) : path;
}

/** A package (`fastify`, `@grpc/grpc-js`), a workspace (`services/gateway`, `lib/kit`), node core or V8. */
export function originOf(frame: CallFrame): Origin {
  const { url, functionName } = frame;
  if (url === '') {
    return {
      kind: 'native',
      name: functionName.startsWith('(') ? functionName : 'native bindings and V8 builtins',
    };
  }
  if (url.startsWith('node:')) return { kind: 'node', name: 'node core (JS)' };
  const parts = shortPath(url).split('/');
  if (isOwnCode(url)) return { kind: 'own', name: parts.slice(0, 2).join('/') };
  if (url.includes('/node_modules/')) {
    return {
      kind: 'package',
      name: parts[0]?.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? url),
    };
  }
  return { kind: 'other', name: url };
}

/** The summary as indented lines: origins, then functions by self time, then own code by total time. */
export function formatProfileSummary(s: ProfileSummary): string[] {
  const pct = (share: number): string => `${(share * 100).toFixed(1).padStart(5)}%`;
  const list = (title: string, shares: readonly FrameShare[]): string[] => [
    title,
    ...shares.map((f) => `  ${pct(f.share)}  ${f.label}`),
  ];
  return [
    ...(s.windowed ? [] : ['no sample in the measured window: the whole profile, start-up included']),
    `${s.busySamples} busy samples, ${pct(s.idleShare).trim()} of the window idle (waiting for work); shares are of busy time`,
    ...list('self time by origin:', s.byOrigin),
    ...list('self time by function:', s.bySelf),
    ...list('total time (self + callees) of our own functions:', s.byTotalOwnCode),
  ];
}
