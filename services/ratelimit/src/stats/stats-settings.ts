import type { EnvReader } from '@portcullis/kit';

export const STATSD_PROTOCOLS = ['tcp', 'udp'] as const;
export type StatsdProtocol = (typeof STATSD_PROTOCOLS)[number];

export const PROMETHEUS_NAMINGS = ['portcullis', 'upstream'] as const;
export type PrometheusNaming = (typeof PROMETHEUS_NAMINGS)[number];

/**
 * One `DOG_STATSD_MOGRIFIER_<NAME>_*` entry, as upstream's `godogstats` reads it: a name matching `pattern`
 * is sent as `name` with `tags`, `$1`… replaced by the pattern's groups.
 */
export interface Mogrifier {
  key: string;
  pattern: string;
  name: string;
  tags: Array<[key: string, value: string]>;
}

export interface StatsdSinkSettings {
  /** `USE_STATSD` or `USE_DOG_STATSD`. */
  enabled: boolean;
  host: string;
  port: number;
  /** `STATSD_PROTOCOL`: `tcp` by default as upstream's gostats, `udp` with DogStatsD as upstream's datadog-go. */
  protocol: StatsdProtocol;
  /** `USE_DOG_STATSD`: tags as `|#k:v` rather than written into the name. */
  dogStatsd: boolean;
  /** `USE_DOG_STATSD_MOGRIFIERS`, in that order; the first whose pattern matches renames. */
  mogrifiers: Mogrifier[];
}

/**
 * The statsd sink's settings, by upstream's names. Upstream refuses two sinks at once, so `USE_DOG_STATSD=true`
 * needs `USE_STATSD=false` here too: the same environment starts either service.
 */
export function readStatsdSinkSettings(env: EnvReader, port: number): StatsdSinkSettings {
  const statsd = env.bool('USE_STATSD', { default: true });
  const dogStatsd = env.bool('USE_DOG_STATSD', { default: false });
  if (statsd && dogStatsd) {
    env.problem('USE_DOG_STATSD=true: set USE_STATSD=false too, one statsd sink at a time (as upstream)');
  }
  const mogrifierKeys = env.list('USE_DOG_STATSD_MOGRIFIERS');
  if (mogrifierKeys.length > 0 && !dogStatsd) {
    env.problem('USE_DOG_STATSD_MOGRIFIERS: only DogStatsD renames, set USE_DOG_STATSD=true');
  }
  return {
    enabled: statsd || dogStatsd,
    host: env.str('STATSD_HOST', { default: 'localhost' }),
    port,
    protocol: env.oneOf('STATSD_PROTOCOL', STATSD_PROTOCOLS, { default: dogStatsd ? 'udp' : 'tcp' }),
    dogStatsd,
    mogrifiers: mogrifierKeys.map((key) => readMogrifier(env, key)),
  };
}

export function readPrometheusNaming(env: EnvReader): PrometheusNaming {
  return env.oneOf('PROMETHEUS_NAMING', PROMETHEUS_NAMINGS, { default: 'portcullis' });
}

function readMogrifier(env: EnvReader, key: string): Mogrifier {
  const at = `DOG_STATSD_MOGRIFIER_${key}`;
  const pattern = env.str(`${at}_PATTERN`);
  const name = env.str(`${at}_NAME`);
  if (pattern === '')
    env.problem(`${at}_PATTERN: required, mogrifier ${key} is in USE_DOG_STATSD_MOGRIFIERS`);
  else {
    try {
      new RegExp(pattern);
    } catch (err: unknown) {
      env.problem(`${at}_PATTERN="${pattern}": not a regular expression (${(err as Error).message})`);
    }
  }
  if (name === '') env.problem(`${at}_NAME: required, mogrifier ${key} is in USE_DOG_STATSD_MOGRIFIERS`);
  const tags: Mogrifier['tags'] = [];
  // upstream reads TAGS as envconfig reads a map: `k:v,k2:v2`, split at the first `:`
  for (const item of env.list(`${at}_TAGS`)) {
    const i = item.indexOf(':');
    const [k, v] = i < 0 ? [item, undefined] : [item.slice(0, i), item.slice(i + 1)];
    if (v === undefined) env.problem(`${at}_TAGS: "${item}" is not key:value`);
    else if (k === '' || v === '') env.problem(`${at}_TAGS: "${item}" needs both a key and a value`);
    else tags.push([k, v]);
  }
  return { key, pattern, name, tags };
}
