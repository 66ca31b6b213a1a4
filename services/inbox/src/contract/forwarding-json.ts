// What the API shows of forwarding troubles (`GET /api/endpoints/:id/dead-letters`): the dead letters and the
// circuits the forwarders hold open. The inspector reads them; the API routes and the forwarders' reports
// produce them.

export type CircuitState = 'closed' | 'open' | 'half-open';

/** One forwarder's circuit of one target, as the API shows it. */
export interface CircuitReport {
  /** The forwarder: its consumer name (`INBOX_WORKER_NAME`). */
  worker: string;
  target: string;
  state: CircuitState;
  failures: number;
  /** ISO 8601, when open: when the probe may go. */
  openUntil?: string;
}

/** A dead letter as the API shows it. */
export interface DeadLetterJson {
  /** A stream id, `<ms>-<seq>`: orders the letters and names one to redrive. */
  id: string;
  requestId: string;
  target: string;
  attempts: number;
  /** The last status, or the last error. */
  last: string;
  /** ISO 8601. */
  at: string;
}
