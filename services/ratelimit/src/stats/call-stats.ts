import type { Histogram } from 'prom-client';
import type { StatCounter } from './stat-counter.js';

/** Response times kept between two statsd flushes; past it, a uniform sample sent with its rate. */
export const MAX_TIMING_SAMPLES = 1000;

/** Timings taken since the last drain: a sample of them, and how many there were. */
export interface TimingSample {
  /** Milliseconds. */
  samples: number[];
  count: number;
}

/**
 * Upstream's gRPC server statistics for one method: `ratelimit_server.<method>.total_requests` and the
 * `.response_time` timer (milliseconds), answered calls and failed ones alike.
 */
export class CallStats {
  readonly total_requests: StatCounter = { value: 0 };
  private samples: number[] = [];
  private count = 0;
  private histogram: ((ms: number) => void) | undefined;

  constructor(
    readonly method: string,
    private readonly random: () => number = Math.random,
  ) {}

  /** Prometheus observes every call, `value` of its milliseconds (seconds, or upstream's whole milliseconds). */
  observeWith(histogram: Histogram<'grpc_method'>, value: (ms: number) => number): void {
    const child = histogram.labels({ grpc_method: this.method });
    this.histogram = (ms) => child.observe(value(ms));
  }

  record(ms: number): void {
    this.total_requests.value++;
    this.histogram?.(ms);
    this.count++;
    if (this.samples.length < MAX_TIMING_SAMPLES) {
      this.samples.push(ms);
      return;
    }
    // reservoir sampling: every call of the interval has the same chance to be sent
    const slot = Math.floor(this.random() * this.count);
    if (slot < MAX_TIMING_SAMPLES) this.samples[slot] = ms;
  }

  /** The timings since the previous drain, for the statsd sink. */
  drain(): TimingSample {
    const out = { samples: this.samples, count: this.count };
    this.samples = [];
    this.count = 0;
    return out;
  }
}
