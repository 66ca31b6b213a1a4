import { PortUnavailableError, SettingsError } from './errors.js';
import type { LogOptions, Logger } from './log.js';

/**
 * How a process that did not start says why on a terminal (`LOG_FORMAT=text`): one plain line per problem,
 * opening with the program's name and saying what to do; the stack only at `debug` and `trace`.
 */
export function describeStartFailure(name: string, err: unknown, level: LogOptions['level']): string[] {
  if (err instanceof SettingsError) {
    const fix = err.problems.length === 1 ? 'fix this setting' : 'fix these settings';
    return [
      ...err.problems.map((p) => `${name}: ${p}`),
      `${name}: not started: ${fix} and start it again (its docs/settings.md lists every setting)`,
    ];
  }
  if (err instanceof PortUnavailableError) return [`${name}: not started: ${err.message}`];
  const message = err instanceof Error ? err.message : String(err);
  const lines = [`${name}: start-up failed: ${message}`];
  const stack = err instanceof Error ? err.stack : undefined;
  if ((level === 'debug' || level === 'trace') && stack !== undefined) lines.push(stack);
  else lines.push(`${name}: LOG_LEVEL=debug shows where it failed`);
  return lines;
}

/**
 * Logs the line that says a process is ready and where it listens. It shows at the default `warn` level of
 * the rate-limit service too (a process that starts in silence looks hung); only `error` and `fatal` hide it.
 */
export function logReady(log: Logger, line: string): void {
  const announce = log.isLevelEnabled('warn') ? log.child({}, { level: 'info' }) : log;
  announce.info(line);
}
