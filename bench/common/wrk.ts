import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolResult, ToolRun } from './tool-load.js';
import { spawnTool } from './tool-process.js';

export interface WrkOptions {
  port: number;
  path: string;
  method: string;
  /** The request body and its type, sent with every request; none when left out. */
  body?: { text: string; contentType: string };
  headers?: Readonly<Record<string, string>>;
  /** Keep-alive HTTP/1.1 connections, one request in flight on each. */
  connections: number;
}

export interface Wrk {
  /** wrk takes whole seconds: `durationMs` is rounded, to 1 s at least. */
  run(durationMs: number): ToolRun;
  close(): Promise<void>;
}

/** The figures the script's `done` hook prints as its last line; latencies in µs. */
interface WrkFigures {
  requests: number;
  durationUs: number;
  p50Us: number;
  p99Us: number;
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
}

const script = (o: WrkOptions): string => `wrk.method = ${luaString(o.method)}
${requestLines(o).join('\n')}

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"durationUs":%d,"p50Us":%f,"p99Us":%f,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect, e.read, e.write, e.status, e.timeout))
end
`;

function requestLines(o: WrkOptions): string[] {
  const headers = { ...o.headers, ...(o.body ? { 'Content-Type': o.body.contentType } : {}) };
  return [
    ...(o.body ? [`wrk.body = ${luaString(o.body.text)}`] : []),
    ...Object.entries(headers).map(
      ([name, value]) => `wrk.headers[ ${luaString(name)} ] = ${luaString(value)}`,
    ),
  ];
}

/** A Lua long string: no escape sequences to get wrong. */
function luaString(text: string): string {
  let level = '';
  while (text.includes(`]${level}]`)) level += '=';
  return `[${level}[${text}]${level}]`;
}

/** The whole seconds wrk runs for `durationMs`: rounded, 1 at least. */
export function wrkSeconds(durationMs: number): number {
  return Math.max(1, Math.round(durationMs / 1000));
}

/**
 * `wrk` to 127.0.0.1:`port`, one thread; a Lua script sets method, headers and body, and its `done`
 * hook prints the count, duration, p50, p99 (from wrk's own latency histogram) and errors as JSON.
 */
export async function createWrk(o: WrkOptions): Promise<Wrk> {
  const dir = await mkdtemp(join(tmpdir(), 'portcullis-wrk-'));
  const scriptFile = join(dir, 'request.lua');
  await writeFile(scriptFile, script(o));
  const run = (durationMs: number): ToolRun => {
    const seconds = wrkSeconds(durationMs);
    const tool = spawnTool('wrk', [
      ...['-t', '1', '-c', String(o.connections), '-d', `${seconds}s`, '-s', scriptFile],
      `http://127.0.0.1:${o.port}${o.path}`,
    ]);
    return { pid: tool.pid, result: tool.stdout.then(parseWrk) };
  };
  return { run, close: () => rm(dir, { recursive: true, force: true }) };
}

function parseWrk(stdout: string): ToolResult {
  const line = stdout
    .trimEnd()
    .split('\n')
    .findLast((l) => l.startsWith('{'));
  if (!line) throw new Error(`wrk printed no figures:\n${stdout}`);
  const f = JSON.parse(line) as WrkFigures;
  const counts: Array<[string, number]> = [
    ['HTTP status ≥ 400', f.status],
    ['wrk: connect error', f.connect],
    ['wrk: read error', f.read],
    ['wrk: write error', f.write],
    ['wrk: timed out', f.timeout],
  ];
  return {
    summary: {
      count: f.requests,
      perSecond: (f.requests * 1e6) / f.durationUs,
      p50Ms: f.p50Us / 1000,
      p99Ms: f.p99Us / 1000,
    },
    errorsByLabel: new Map(counts.filter(([, n]) => n > 0)),
  };
}
