import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { percentile } from './percentile.js';
import type { ToolResult, ToolRun } from './tool-load.js';
import { spawnTool } from './tool-process.js';

export interface H2loadOptions {
  port: number;
  path: string;
  /** The request body, sent with every request (POST). */
  body: Buffer;
  headers: Readonly<Record<string, string>>;
  connections: number;
  streamsPerConnection: number;
  /** `h1`: HTTP/1.1 (`--h1`), one request in flight per connection; HTTP/2 cleartext otherwise. */
  protocol?: 'h2c' | 'h1';
}

export interface H2load {
  run(durationMs: number): ToolRun;
  /** Exactly `requests` requests (`-n`), however long they take. */
  runCount(requests: number): ToolRun;
  close(): Promise<void>;
}

/**
 * `h2load` over HTTP/2 cleartext (prior knowledge), or HTTP/1.1 with `protocol: 'h1'`, to 127.0.0.1:`port`,
 * one thread. Requests/s and the
 * error counts come from its summary, p50 and p99 from its per-request log (`--log-file`). It sees HTTP
 * statuses only: a 2xx answer with a failing grpc-status trailer counts as a success.
 */
export async function createH2load(o: H2loadOptions): Promise<H2load> {
  const dir = await mkdtemp(join(tmpdir(), 'portcullis-h2load-'));
  const bodyFile = join(dir, 'body');
  await writeFile(bodyFile, o.body);
  let runs = 0;
  const start = (extent: readonly string[]): ToolRun => {
    const logFile = join(dir, `requests-${runs++}.tsv`);
    const tool = spawnTool('h2load', [
      ...['-c', String(o.connections), '-m', String(o.streamsPerConnection), '-t', '1'],
      ...(o.protocol === 'h1' ? ['--h1'] : []),
      ...extent,
      ...['-d', bodyFile, `--log-file=${logFile}`],
      ...Object.entries(o.headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]),
      `http://127.0.0.1:${o.port}${o.path}`,
    ]);
    const result = tool.stdout.then(async (stdout) => parseH2load(stdout, await readFile(logFile, 'utf8')));
    return { pid: tool.pid, result };
  };
  return {
    run: (durationMs) => start(['-D', `${durationMs}ms`]),
    runCount: (requests) => start(['-n', String(requests)]),
    close: () => rm(dir, { recursive: true, force: true }),
  };
}

function parseH2load(stdout: string, log: string): ToolResult {
  const perSecond = Number(/finished in [\d.]+m?s, ([\d.]+) req\/s/.exec(stdout)?.[1]);
  const requests = /requests: .* (\d+) errored, (\d+) timeout/.exec(stdout);
  const statuses = /status codes: \d+ 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx/.exec(stdout);
  if (Number.isNaN(perSecond) || !requests || !statuses) {
    throw new Error(`h2load printed no summary:\n${stdout}`);
  }
  // Columns: start (µs since epoch), HTTP status (-1 for a failed stream), µs until the end of the answer.
  const latenciesMs = Float64Array.from(
    log
      .split('\n')
      .map((line) => line.split('\t'))
      .filter(([, status, us]) => us !== undefined && status !== '-1')
      .map(([, , us]) => Number(us) / 1000),
  ).sort();
  const counts: Array<[string, string | undefined]> = [
    ['HTTP 3xx', statuses[1]],
    ['HTTP 4xx', statuses[2]],
    ['HTTP 5xx', statuses[3]],
    ['h2load: stream failed', requests[1]],
    ['h2load: timed out', requests[2]],
  ];
  return {
    summary: {
      count: latenciesMs.length,
      perSecond,
      p50Ms: percentile(latenciesMs, 0.5),
      p99Ms: percentile(latenciesMs, 0.99),
    },
    errorsByLabel: new Map(counts.map(([label, n]) => [label, Number(n)] as const).filter(([, n]) => n > 0)),
  };
}
