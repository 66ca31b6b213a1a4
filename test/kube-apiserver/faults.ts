import { injectedFault, type ApiError } from './errors.js';

/** Fault injection: answer matching requests with an error status, or hold them back for a while. */

export interface RequestMatch {
  /** HTTP method, e.g. `PUT`; any when omitted. */
  method?: string;
  /** A string matches the path exactly (no query); a RegExp is tested against path and query. */
  path?: string | RegExp;
}

export interface FailRule extends RequestMatch {
  status: number;
  /** How many matching requests fail; 1 when omitted. */
  count?: number;
  message?: string;
}

export interface DelayRule extends RequestMatch {
  delayMs: number;
  /** How many matching requests are delayed; all of them when omitted. */
  count?: number;
}

interface Armed<T> {
  rule: T;
  left: number;
}

function matches(rule: RequestMatch, method: string, url: URL): boolean {
  if (rule.method && rule.method.toUpperCase() !== method) return false;
  if (rule.path === undefined) return true;
  if (typeof rule.path === 'string') return rule.path === url.pathname;
  return rule.path.test(url.pathname + url.search);
}

export class FaultInjector {
  private failures: Armed<FailRule>[] = [];
  private delays: Armed<DelayRule>[] = [];

  failNext(rule: FailRule): void {
    this.failures.push({ rule, left: rule.count ?? 1 });
  }

  delay(rule: DelayRule): void {
    this.delays.push({ rule, left: rule.count ?? Number.POSITIVE_INFINITY });
  }

  /** The injected error for this request, if a rule still has failures left. */
  takeFailure(method: string, url: URL): ApiError | undefined {
    const armed = this.failures.find((f) => f.left > 0 && matches(f.rule, method, url));
    if (!armed) return undefined;
    armed.left -= 1;
    this.failures = this.failures.filter((f) => f.left > 0);
    return injectedFault(armed.rule.status, armed.rule.message ?? `injected fault: ${armed.rule.status}`);
  }

  /** Total delay for this request in milliseconds. */
  takeDelayMs(method: string, url: URL): number {
    let total = 0;
    for (const d of this.delays) {
      if (d.left > 0 && matches(d.rule, method, url)) {
        d.left -= 1;
        total += d.rule.delayMs;
      }
    }
    this.delays = this.delays.filter((d) => d.left > 0);
    return total;
  }

  clear(): void {
    this.failures = [];
    this.delays = [];
  }
}
