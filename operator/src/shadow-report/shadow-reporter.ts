import { sanitizeStatName, type RateLimitConfig, type Kind, type ShadowReport } from '@portcullis/config';
import type { Logger } from '@portcullis/kit';
import type { KindResult } from '../reconcile/types.js';
import { resourceName, type Resource } from '../resources.js';
import { forEachBounded } from '../status/bounded-each.js';
import { fetchMetrics, ScrapeError } from './fetch-metrics.js';
import { HitWindow } from './hit-window.js';
import { readInstance } from './instance-reading.js';
import type { ShadowReportMetrics } from './report-metrics.js';
import type { ShadowReportSink } from './report-sink.js';
import { buildReport, carriedReport, isReportChanged } from './rule-report.js';
import type { ShadowReportSettings } from './settings.js';

/** A RateLimitConfig being served, with the configuration served (its last good generation). */
export interface ServedConfig {
  resource: Resource;
  config: RateLimitConfig;
}

/** The served RateLimitConfigs of a reconcile's result, resource and model together. */
export function servedConfigs(result: KindResult): ServedConfig[] {
  const resources = new Map(result.outcomes.map((o) => [resourceName(o.resource), o.resource]));
  return result.models.flatMap(({ name, model }) => {
    const resource = resources.get(name);
    return resource ? [{ resource, config: model as RateLimitConfig }] : [];
  });
}

/** Where the latest status of a resource is read (the operator's store). */
export interface ResourceLookup {
  get(kind: Kind, name: string): Resource | undefined;
}

/** Buckets per window: the window's resolution. */
const BUCKETS = 60;
/** Scrapes and status writes in flight at once. */
const CONCURRENCY = 8;

/**
 * The shadow-mode report: every interval, while this replica leads, scrapes each ratelimit instance's
 * metrics, keeps the per-rule increases over a sliding window, and writes each served RateLimitConfig's
 * report to its status when it changed meaningfully (`isReportChanged`). It runs on its own timer: a slow or
 * failing scrape delays the next report, never a reconcile. Failures are logged when an instance's problem
 * changes, and counted. On taking the lead (or starting), each served configuration's window starts from
 * the report already in its status when that is still in the window (`carriedReport`), so a leader change
 * does not empty the reports.
 */
export class ShadowReporter {
  private readonly window: HitWindow;
  /** The last report written per uid, so unchanged reports are not written again. */
  private readonly written = new Map<string, ShadowReport>();
  private readonly failing = new Map<string, string>();
  /** Whether the reports in the statuses are still to be carried: until the first round while leading. */
  private carrying = true;
  private timer: NodeJS.Timeout | undefined;
  private round: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly now: () => number;

  constructor(
    private readonly o: {
      settings: ShadowReportSettings;
      /** The metrics URLs of the instances now. */
      targets: () => string[];
      served: () => readonly ServedConfig[];
      /** The resources as the store has them now: a served one's status may predate the last report written. */
      resources: ResourceLookup;
      isLeader: () => boolean;
      sink: ShadowReportSink;
      metrics: ShadowReportMetrics;
      log: Logger;
      now?: () => number;
    },
  ) {
    this.window = new HitWindow({
      windowMs: o.settings.windowMs,
      bucketMs: Math.max(1, Math.ceil(o.settings.windowMs / BUCKETS)),
    });
    this.now = o.now ?? Date.now;
  }

  start(): void {
    const loop = (): void => {
      this.round = this.runRound().catch((err: unknown) => this.o.log.error({ err }, 'shadow report failed'));
      void this.round.then(() => {
        if (!this.closed) this.timer = setTimeout(loop, this.o.settings.intervalMs);
      });
    };
    this.timer = setTimeout(loop, this.o.settings.intervalMs);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.round;
  }

  private async runRound(): Promise<void> {
    if (!this.o.isLeader()) {
      this.window.clear();
      this.written.clear();
      this.carrying = true;
      return;
    }
    if (this.carrying) {
      this.carrying = false;
      this.carryReports(this.now());
    }
    const urls = new Set(this.o.targets());
    await forEachBounded([...urls], CONCURRENCY, (url) => this.scrape(url));
    const now = this.now();
    this.window.forget(urls, now);
    for (const url of this.failing.keys()) if (!urls.has(url)) this.failing.delete(url);
    const totals = this.window.totals(now);
    const changed: Array<{ resource: Resource; report: ShadowReport }> = [];
    for (const { resource, config } of this.o.served()) {
      const domain = sanitizeStatName(config.domain);
      const report = buildReport({
        config,
        hits: totals.get(domain),
        maxRules: this.o.settings.maxRules,
        windowMs: this.o.settings.windowMs,
        fromMs: this.window.coveredFromMs(domain, now),
        uncountedMs: this.window.uncountedMs(domain, now),
        nowMs: now,
      });
      const before = this.written.get(resource.metadata.uid) ?? this.statusReport(resource);
      if (isReportChanged(before, report)) changed.push({ resource, report });
    }
    await forEachBounded(changed, CONCURRENCY, async ({ resource, report }) => {
      const ok = await this.o.sink.write(resource, report);
      this.o.metrics.writes.inc({ result: ok ? 'written' : 'failed' });
      if (ok) this.written.set(resource.metadata.uid, report);
    });
  }

  private carryReports(nowMs: number): void {
    for (const { resource, config } of this.o.served()) {
      const carried = carriedReport(this.statusReport(resource), {
        domain: config.domain,
        windowMs: this.o.settings.windowMs,
        nowMs,
      });
      if (carried) this.window.carry(sanitizeStatName(config.domain), carried.rules, { ...carried, nowMs });
    }
  }

  private statusReport(resource: Resource): ShadowReport | undefined {
    const now = this.o.resources.get(resource.kind, resourceName(resource));
    return (now?.metadata.uid === resource.metadata.uid ? now : resource).status?.shadowReport;
  }

  private async scrape(url: string): Promise<void> {
    const { timeoutMs, maxBytes } = this.o.settings;
    try {
      const reading = readInstance(await fetchMetrics(url, { timeoutMs, maxBytes }));
      this.window.record(url, reading, this.now());
      this.o.metrics.scrapes.inc({ result: 'ok' });
      if (this.failing.delete(url)) this.o.log.info({ url }, 'metrics scraped again');
    } catch (err: unknown) {
      const failure =
        err instanceof ScrapeError
          ? err
          : new ScrapeError('unreadable', err instanceof Error ? err.message : String(err));
      this.o.metrics.scrapes.inc({ result: failure.reason });
      if (this.failing.get(url) !== failure.message)
        this.o.log.warn({ url, reason: failure.reason, problem: failure.message }, 'metrics not scraped');
      this.failing.set(url, failure.message);
    }
  }
}
