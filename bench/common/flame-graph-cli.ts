// npx tsx bench/common/flame-graph-cli.ts <in.cpuprofile> <out.svg> [--title T] [--from-ms A] [--to-ms B]
// Renders a V8 CPU profile as a flame graph (SVG); the window is in ms from the profile's start.
import { readFile, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
// the package's entry loads every fixture (seconds); this subpath only the profile checks
import { cpuProfileProblems, type CpuProfile } from '@portcullis/testing/v8-profiles';
import { renderFlameGraph } from './flame-graph.js';

const USAGE =
  'usage: flame-graph-cli.ts <in.cpuprofile> <out.svg> [--title T] [--from-ms A] [--to-ms B] (ms from the profile start)';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { title: { type: 'string' }, 'from-ms': { type: 'string' }, 'to-ms': { type: 'string' } },
});
const [input, output] = positionals;
if (!input || !output || positionals.length > 2) fail(USAGE);

const profile = JSON.parse(await readFile(input, 'utf8')) as unknown;
const problems = cpuProfileProblems(profile);
if (problems.length > 0) fail(`${input} is no CPU profile: ${problems.join('; ')}`);
const { startTime, endTime } = profile as CpuProfile;
const window = {
  fromUs: startTime + msOption('from-ms', 0) * 1000,
  toUs: startTime + msOption('to-ms', (endTime - startTime) / 1000) * 1000,
};
const svg = renderFlameGraph(profile as CpuProfile, { window, title: values.title ?? basename(input) });
await writeFile(output, svg);
process.stdout.write(`${output}\n`);

function msOption(name: 'from-ms' | 'to-ms', unset: number): number {
  const raw = values[name];
  if (raw === undefined) return unset;
  const ms = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(ms)) fail(`--${name} ${raw}: not a number of milliseconds`);
  return ms;
}

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}
