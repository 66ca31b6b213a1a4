import type { EnvReader } from '@portcullis/kit';

export interface ShadowReportSettings {
  /** Between scrapes; 0 turns the report off. */
  intervalMs: number;
  /** The sliding window the counts cover. */
  windowMs: number;
  /** Rules shown per RateLimitConfig, most hits first. */
  maxRules: number;
  /** One scrape, connection to last byte. */
  timeoutMs: number;
  /** A larger metrics body is dropped. */
  maxBytes: number;
  /** Kubernetes mode: the ready endpoints of this discovered service (`OPERATOR_DISCOVERY_SERVICES` name), on this EndpointSlice port. */
  endpoints: { name: string; portName: string };
  /** Metrics URLs scraped instead of discovered endpoints (directory mode, or to override discovery). */
  urls: string[];
}

export function readShadowReportSettings(env: EnvReader): ShadowReportSettings {
  const intervalMs = env.durationMs('OPERATOR_SHADOW_REPORT_INTERVAL', {
    default: '60s',
    min: '100ms',
    max: '1h',
    zeroMeans: 'off',
  });
  const windowMs = env.durationMs('OPERATOR_SHADOW_REPORT_WINDOW', {
    default: '1h',
    min: '10s',
    max: '168h',
  });
  const timeoutMs = env.durationMs('OPERATOR_SHADOW_REPORT_TIMEOUT', {
    default: '5s',
    min: '100ms',
    max: '1m',
  });
  const port = env.str('OPERATOR_SHADOW_REPORT_PORT', { default: 'ratelimit:debug' });
  const m = /^([a-z0-9.-]+):([a-z0-9-]+)$/.exec(port);
  if (!m?.[1] || !m[2]) env.problem(`OPERATOR_SHADOW_REPORT_PORT: "${port}" is not name:portName`);
  const urls = env.list('OPERATOR_SHADOW_REPORT_URLS');
  for (const url of urls)
    if (!/^https?:\/\/[^/]/.test(url) || !URL.canParse(url))
      env.problem(`OPERATOR_SHADOW_REPORT_URLS: "${url}" is not an http(s) URL`);
  if (intervalMs > windowMs)
    env.problem('OPERATOR_SHADOW_REPORT_INTERVAL must not be longer than OPERATOR_SHADOW_REPORT_WINDOW');
  return {
    intervalMs,
    windowMs,
    maxRules: env.int('OPERATOR_SHADOW_REPORT_MAX_RULES', { default: 20, min: 1, max: 200 }),
    timeoutMs,
    maxBytes: env.int('OPERATOR_SHADOW_REPORT_MAX_BYTES', {
      default: 16_777_216,
      min: 65_536,
      max: 1_073_741_824,
    }),
    endpoints: { name: m?.[1] ?? 'ratelimit', portName: m?.[2] ?? 'debug' },
    urls,
  };
}
