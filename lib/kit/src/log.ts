import { destination, pino, type Logger as PinoLogger } from 'pino';
import type { EnvReader } from './env.js';

export type Logger = PinoLogger;
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFormat = 'text' | 'json';

export interface LogOptions {
  level: LogLevel;
  format: LogFormat;
  /** Where lines go; standard output by default. Tests pass a collector. */
  destination?: { write(line: string): void };
}

/**
 * The process logger. `json` writes `@timestamp`, `level`, `@message` and the fields, as upstream Envoy
 * ratelimit does; `text` writes logfmt lines opening with `time`, `level` and `msg`, where an error field
 * shows its message (and code) and its stack only at `debug` and `trace`.
 */
export function createLogger(opts: LogOptions): Logger {
  const out = opts.destination ?? destination({ sync: false });
  const options = {
    level: opts.level,
    base: undefined,
    messageKey: '@message',
    timestamp: () => `,"@timestamp":"${new Date().toISOString()}"`,
    formatters: { level: (label: string) => ({ level: label }) },
  };
  if (opts.format === 'json') return pino(options, out);
  const stacks = opts.level === 'debug' || opts.level === 'trace';
  return pino(options, { write: (line: string) => out.write(toLogfmt(line, stacks)) });
}

function toLogfmt(jsonLine: string, stacks: boolean): string {
  const {
    '@timestamp': time,
    level,
    '@message': msg,
    ...fields
  } = JSON.parse(jsonLine) as Record<string, unknown>;
  const parts = [`time=${quote(time)}`, `level=${quote(level)}`, `msg=${quote(msg ?? '')}`];
  for (const [k, v] of Object.entries(fields)) {
    if (!stacks && isSerializedError(v)) {
      parts.push(`${k}=${quote(v.message)}`);
      if (typeof v.code === 'string' || typeof v.code === 'number') parts.push(`${k}Code=${quote(v.code)}`);
    } else parts.push(`${k}=${quote(v)}`);
  }
  return `${parts.join(' ')}\n`;
}

/** What pino's error serializer writes: `type`, `message` and `stack`, and the error's own fields. */
function isSerializedError(v: unknown): v is { message: string; code?: unknown } {
  return (
    typeof v === 'object' &&
    v !== null &&
    'stack' in v &&
    typeof (v as { message?: unknown }).message === 'string'
  );
}

function quote(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return /^[\w./:@+-]+$/.test(text) ? text : JSON.stringify(text);
}

/** `LOG_LEVEL` and `LOG_FORMAT` (`text` by default), read the same way by every process. */
export function readLogOptions(
  env: EnvReader,
  defaultLevel: LogLevel,
): { level: LogLevel; format: LogFormat } {
  return {
    level: env.oneOf('LOG_LEVEL', LOG_LEVELS, { default: defaultLevel }),
    format: env.oneOf('LOG_FORMAT', ['text', 'json'], { default: 'text' }),
  };
}
