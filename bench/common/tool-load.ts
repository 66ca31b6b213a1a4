import type { Summary } from './stats.js';

/** What an external load generator reports for one run. */
export interface ToolResult {
  summary: Summary;
  /** Wrong answers it saw, by label. */
  errorsByLabel: Map<string, number>;
}

export interface ToolRun {
  /** The load generator's process, whose CPU is read while it runs. */
  pid: number;
  result: Promise<ToolResult>;
}

/** An external load generator set up against one server; `close` removes its temporary files. */
export interface ToolLoad {
  /** Runs it for `durationMs` (rounded to what the tool accepts). */
  run(durationMs: number): ToolRun;
  /**
   * A few calls made apart from the tool, judging what it cannot see (h2load sees HTTP statuses, not the
   * grpc-status trailer nor the decision): wrong answers by label.
   */
  checkSample(): Promise<Map<string, number>>;
  close(): Promise<void>;
}
