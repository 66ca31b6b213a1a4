import { SettingsError } from './errors.js';
import { createLogger, type LogOptions, type Logger } from './log.js';
import { describeStartFailure, logReady } from './start-report.js';

/** One piece of a process: started in list order, closed in reverse. */
export interface Part {
  name: string;
  start(): Promise<void> | void;
  close(): Promise<void> | void;
}

export interface Running {
  /** Closes every started part in reverse order; safe to call more than once. */
  close(): Promise<void>;
}

/**
 * Starts the parts one after another. If one fails, the ones already started are closed before the error
 * is rethrown, so a failed start-up leaves no port or connection behind.
 */
export async function startParts(parts: readonly Part[], log: Logger): Promise<Running> {
  const started: Part[] = [];
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      for (const part of started.slice().reverse()) {
        const t0 = performance.now();
        try {
          await part.close();
          log.debug({ part: part.name, durationMs: Math.round(performance.now() - t0) }, 'part closed');
        } catch (err: unknown) {
          log.error({ part: part.name, err }, 'part failed to close');
        }
      }
    })();
    return closing;
  };
  for (const part of parts) {
    try {
      await part.start();
    } catch (err: unknown) {
      // the caller reports the error itself (runMain's one fatal line); this says which part it was
      log.debug({ part: part.name, err }, 'part failed to start');
      await close();
      throw err;
    }
    started.push(part);
    log.debug({ part: part.name }, 'part started');
  }
  return { close };
}

/**
 * Runs `handler` once on the first SIGINT or SIGTERM (at once when `pending` names one that came earlier),
 * then exits with code 0 (or 1 if it throws). A second signal while shutting down exits at once.
 */
export function onShutdownSignal(
  handler: (signal: NodeJS.Signals) => Promise<void>,
  log: Logger,
  pending?: NodeJS.Signals,
): void {
  let shuttingDown = false;
  const listener = (signal: NodeJS.Signals): void => {
    if (shuttingDown) {
      log.warn({ signal }, 'second signal, exiting now');
      process.exit(1);
    }
    shuttingDown = true;
    shutDown(handler, { signal, log });
  };
  process.on('SIGINT', listener);
  process.on('SIGTERM', listener);
  if (pending) listener(pending);
}

/**
 * Holds a SIGINT or SIGTERM that comes while the service starts: its ports may answer (a health check, a
 * first request) before the start has finished, and the default action would kill it mid-answer with no
 * drain. `take` ends the hold and names the signal that came, for `onShutdownSignal` to act on once started.
 * A second signal exits at once, so Ctrl-C twice stops a start that hangs.
 */
function holdSignalsDuringStart(log: Logger): { take(): NodeJS.Signals | undefined } {
  let held: NodeJS.Signals | undefined;
  const listener = (signal: NodeJS.Signals): void => {
    if (held) process.exit(1);
    held = signal;
    log.warn({ signal }, 'stopping once started (again to stop at once)');
  };
  process.on('SIGINT', listener);
  process.on('SIGTERM', listener);
  return {
    take() {
      process.off('SIGINT', listener);
      process.off('SIGTERM', listener);
      return held;
    },
  };
}

/** `handler` run by the first call only, then exit as `onShutdownSignal` does. */
function onceShutdown(
  handler: (signal: NodeJS.Signals) => Promise<void>,
  log: Logger,
): (signal: NodeJS.Signals) => void {
  let shuttingDown = false;
  return (signal) => {
    if (shuttingDown) return;
    shuttingDown = true;
    shutDown(handler, { signal, log });
  };
}

function shutDown(
  handler: (signal: NodeJS.Signals) => Promise<void>,
  at: { signal: NodeJS.Signals; log: Logger },
): void {
  at.log.info({ signal: at.signal }, 'shutting down');
  handler(at.signal).then(
    () => process.exit(0),
    (err: unknown) => {
      at.log.error({ err }, 'shutdown failed');
      process.exit(1);
    },
  );
}

export interface MainOptions<S, A extends Running> {
  /** The program's name: what opens its lines on a terminal when it cannot start (`ratelimit: …`). */
  name: string;
  loadSettings(): S & { log: Pick<LogOptions, 'level' | 'format'> };
  /** The log settings alone, tolerant of bad values: how to report that the other settings are bad. */
  loadLogSettings(): Pick<LogOptions, 'level' | 'format'>;
  start(settings: S, log: Logger): Promise<A>;
  /**
   * Runs at once on SIGTERM or SIGINT and is awaited before the app closes (readiness failing, then a wait
   * for load balancers to notice, say).
   */
  onSignal?(app: A, signal: NodeJS.Signals): Promise<void> | void;
  /**
   * What begins the shutdown instead of SIGINT and SIGTERM: it calls `begin`, whose calls after the first
   * are ignored (a process whose parent decides when it stops, say).
   */
  shutdownOn?(begin: (signal: NodeJS.Signals) => void): void;
  /** Fields on every line of the process's logger (a worker's id, say). */
  logBindings?: Record<string, unknown>;
  /**
   * Where the started app listens, one line logged once it is ready: `gRPC on 127.0.0.1:8081, HTTP on …`;
   * `undefined` for no line (a primary whose workers say it).
   */
  describeReady?(app: A, settings: S): string | undefined;
}

/**
 * The whole of a process's `main`: settings, logger, start, the ready line, close on a signal. A bad setting
 * or a failed start is reported (every bad variable named: plain lines on stderr with `LOG_FORMAT=text`, a
 * fatal log line with `json`) and the exit code is 1.
 */
export async function runMain<S, A extends Running>(o: MainOptions<S, A>): Promise<void> {
  try {
    const settings = o.loadSettings();
    const log = createLogger(settings.log).child(o.logBindings ?? {});
    const held = o.shutdownOn ? undefined : holdSignalsDuringStart(log);
    let app: A;
    try {
      app = await o.start(settings, log);
    } catch (err: unknown) {
      held?.take();
      throw err;
    }
    const ready = o.describeReady?.(app, settings);
    if (ready !== undefined) logReady(log, `${o.name}: ${ready}`);
    const shutdown = async (signal: NodeJS.Signals): Promise<void> => {
      await o.onSignal?.(app, signal);
      await app.close();
    };
    if (o.shutdownOn) o.shutdownOn(onceShutdown(shutdown, log));
    else onShutdownSignal(shutdown, log, held?.take());
  } catch (err: unknown) {
    const logSettings = o.loadLogSettings();
    process.exitCode = 1;
    if (logSettings.format === 'text') {
      process.stderr.write(`${describeStartFailure(o.name, err, logSettings.level).join('\n')}\n`);
      return;
    }
    const log = createLogger(logSettings);
    if (err instanceof SettingsError) log.fatal({ problems: err.problems }, 'invalid settings');
    else log.fatal({ err }, 'start-up failed');
    log.flush();
  }
}
