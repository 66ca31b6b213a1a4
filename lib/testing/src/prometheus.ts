import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { spawnServer } from './server-process.js';

/** One scrape job: its name (the `job` label), `host:port` targets, and labels added to every series. */
export interface ScrapeJob {
  job: string;
  targets: readonly string[];
  labels?: Readonly<Record<string, string>>;
}

/** What `/api/v1/query` answered: the series of a valid query, or Prometheus' error for an invalid one. */
export type QueryAnswer =
  | { ok: true; series: ReadonlyArray<{ metric: Record<string, string>; value: [number, string] }> }
  | { ok: false; error: string };

export interface PrometheusServer {
  url: string;
  /** An instant query now, through the HTTP API. */
  query(expr: string): Promise<QueryAnswer>;
  stop(): Promise<void>;
}

/**
 * Starts Debian's `prometheus` (the package, not its system service) on a free loopback port with its own
 * configuration and storage in a temporary directory, scraping `jobs` every `scrapeIntervalMs`.
 */
export async function startPrometheus(o: {
  jobs: readonly ScrapeJob[];
  scrapeIntervalMs: number;
}): Promise<PrometheusServer> {
  const dir = await mkdtemp(join(tmpdir(), 'prometheus-'));
  const config = {
    global: { scrape_interval: `${o.scrapeIntervalMs}ms`, scrape_timeout: `${o.scrapeIntervalMs}ms` },
    scrape_configs: o.jobs.map((j) => ({
      job_name: j.job,
      static_configs: [{ targets: j.targets, labels: j.labels ?? {} }],
    })),
  };
  // JSON is YAML
  await writeFile(join(dir, 'prometheus.yml'), JSON.stringify(config));
  const port = await freePort();
  const server = await spawnServer({
    command: 'prometheus',
    args: [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    port,
    probe: { send: 'GET /-/ready HTTP/1.0\r\n\r\n', ready: (reply) => reply.startsWith('HTTP/1.0 200') },
    timeoutMs: 20_000,
  }).catch(async (err: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw err;
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    async query(expr) {
      const r = await fetch(`${url}/api/v1/query`, {
        method: 'POST',
        body: new URLSearchParams({ query: expr }),
      });
      const body = (await r.json()) as {
        status: string;
        error?: string;
        data?: { result: Extract<QueryAnswer, { ok: true }>['series'] };
      };
      return body.status === 'success' && body.data
        ? { ok: true, series: body.data.result }
        : { ok: false, error: body.error ?? `HTTP ${r.status}` };
    },
    async stop() {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
