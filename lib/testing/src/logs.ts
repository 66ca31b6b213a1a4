import { createLogger, type Logger } from '@portcullis/kit';

/** A logger that writes nothing, for tests that start real processes' parts. */
export const quietLog: Logger = createLogger({
  level: 'fatal',
  format: 'json',
  destination: { write: () => undefined },
});

/** A logger that keeps every line, parsed, for assertions on messages and fields. */
export function createCollectingLog(): { log: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const log = createLogger({
    level: 'debug',
    format: 'json',
    destination: { write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { log, lines };
}
