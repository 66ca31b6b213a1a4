// Shape checks of what `/debug/pprof/` serves, as the tools that open the files read them: each returns its
// problems, one line each, empty when the value is well formed.

/** The fields of a V8 `.cpuprofile` (Chrome DevTools' `Profiler.Profile`, `--cpu-prof`'s file) that tools read; times in µs. */
export interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }>;
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** What is wrong with `value` as a `.cpuprofile` with at least one sample. */
export function cpuProfileProblems(value: unknown): string[] {
  const p = value as Partial<CpuProfile> | null;
  if (typeof p !== 'object' || p === null) return ['not an object'];
  const problems: string[] = [];
  const nodes = Array.isArray(p.nodes) ? p.nodes : [];
  if (nodes.length === 0) problems.push('nodes: none');
  for (const [i, node] of nodes.entries()) {
    const frame = node.callFrame as Partial<CpuProfile['nodes'][number]['callFrame']> | undefined;
    const types = [typeof node.id, typeof frame?.functionName, typeof frame?.url, typeof frame?.lineNumber];
    if (types.join() !== 'number,string,string,number') {
      problems.push(`nodes[${i}]: id, callFrame.functionName, url, lineNumber are ${types.join(', ')}`);
    }
  }
  if (!(typeof p.startTime === 'number' && typeof p.endTime === 'number' && p.startTime < p.endTime)) {
    problems.push('startTime: not a number before endTime');
  }
  const samples = Array.isArray(p.samples) ? p.samples : [];
  if (samples.length === 0) problems.push('samples: none');
  if (!Array.isArray(p.timeDeltas) || p.timeDeltas.length !== samples.length) {
    problems.push('timeDeltas: not one per sample');
  }
  const ids = new Set(nodes.map((n) => n.id));
  if (!samples.every((id) => ids.has(id))) problems.push('samples: an id that is no node');
  return problems;
}

/** What is wrong with `value` as a parsed V8 `.heapsnapshot`. */
export function heapSnapshotProblems(value: unknown): string[] {
  const s = value as {
    snapshot?: { meta?: { node_fields?: unknown }; node_count?: unknown };
    nodes?: unknown;
  } | null;
  const fields = s?.snapshot?.meta?.node_fields;
  if (!Array.isArray(fields) || !fields.includes('name')) return ['snapshot.meta.node_fields: no name'];
  const count = s?.snapshot?.node_count;
  if (typeof count !== 'number' || count <= 0) return ['snapshot.node_count: not a positive number'];
  if (!Array.isArray(s?.nodes) || s.nodes.length !== count * fields.length) {
    return ['nodes: not node_count × node_fields numbers'];
  }
  return [];
}

const PROFILE_PATHS = [
  '/debug/pprof/',
  '/debug/pprof/profile?seconds=1',
  '/debug/pprof/heap',
  '/debug/pprof/runtime',
];

/**
 * Problems of a service's `/debug/pprof/`: served on `profileUrl` (an index, a 1 s CPU profile of the V8
 * shape, runtime figures), and none of its paths on `publicUrl` (404).
 */
export async function profilePortProblems(o: { profileUrl: string; publicUrl: string }): Promise<string[]> {
  const problems: string[] = [];
  for (const path of PROFILE_PATHS) {
    const status = (await fetch(o.publicUrl + path)).status;
    if (status !== 404) problems.push(`public ${path}: ${status}, not 404`);
  }
  const index = await fetch(`${o.profileUrl}/debug/pprof/`);
  const text = await index.text();
  if (index.status !== 200 || !text.includes('/debug/pprof/profile: ')) {
    problems.push(`/debug/pprof/: ${index.status}, no profile listed`);
  }
  const profile = await fetch(`${o.profileUrl}/debug/pprof/profile?seconds=1`);
  if (profile.status !== 200) problems.push(`/debug/pprof/profile: ${profile.status}`);
  else problems.push(...cpuProfileProblems(await profile.json()).map((p) => `profile ${p}`));
  const runtime = await fetch(`${o.profileUrl}/debug/pprof/runtime`);
  const figures = (await runtime.json()) as { memoryBytes?: { heapUsed?: unknown } };
  if (runtime.status !== 200 || typeof figures.memoryBytes?.heapUsed !== 'number') {
    problems.push(`/debug/pprof/runtime: ${runtime.status}, no memoryBytes.heapUsed`);
  }
  return problems;
}
