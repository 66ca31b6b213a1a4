// Writes the chart's Grafana dashboards, charts/portcullis/dashboards/<name>.json, from their typed source
// (hack/dashboards/portcullis-dashboards.ts, checked against @grafana/schema by tsc). `--check` fails (exit 1)
// when a file differs from its source, so CI keeps them generated.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { DASHBOARDS } from './dashboards/portcullis-dashboards.js';

const DIR = join(import.meta.dirname, '../charts/portcullis/dashboards');
const check = process.argv.includes('--check');

const stale: string[] = [];
for (const [name, dashboard] of Object.entries(DASHBOARDS)) {
  const file = join(DIR, `${name}.json`);
  // formatted as `npm run lint` wants it, so the check and the formatter agree
  const next = await format(JSON.stringify(dashboard), { ...(await resolveConfig(file)), parser: 'json' });
  const current = await readFile(file, 'utf8').catch(() => '');
  if (next === current) continue;
  stale.push(file);
  if (!check) await writeFile(file, next);
}
const unknown = (await readdir(DIR)).filter((f) => !Object.hasOwn(DASHBOARDS, f.replace(/\.json$/, '')));
if (check && (stale.length || unknown.length)) {
  process.stderr.write(
    `${[...stale, ...unknown.map((f) => join(DIR, f))].join(', ')}: out of date, run npx tsx hack/dashboards.ts\n`,
  );
  process.exitCode = 1;
} else {
  for (const f of check ? [] : stale) process.stdout.write(`wrote ${f}\n`);
  if (!check && unknown.length) throw new Error(`${DIR}: not generated here: ${unknown.join(', ')}`);
}
