import { describe, expect, it } from 'vitest';
import { loadSettings } from '../settings.js';

const DOG = {
  USE_STATSD: 'false',
  USE_DOG_STATSD: 'true',
  USE_DOG_STATSD_MOGRIFIERS: 'TAG',
  DOG_STATSD_MOGRIFIER_TAG_PATTERN: String.raw`^ratelimit\.service\.rate_limit\.(.*)\.(.*)\.(.*)$`,
  DOG_STATSD_MOGRIFIER_TAG_NAME: 'ratelimit.service.rate_limit.$3',
  DOG_STATSD_MOGRIFIER_TAG_TAGS: 'domain:$1,descriptor:$2',
};

function problems(env: Record<string, string>): string {
  try {
    loadSettings(env);
    return '';
  } catch (err: unknown) {
    return (err as Error).message;
  }
}

describe('statsd sink settings', () => {
  it("speaks TCP by default as upstream's gostats, UDP with DogStatsD as upstream's datadog-go", () => {
    expect(loadSettings({}).stats.statsd.protocol).toBe('tcp');
    expect(loadSettings({ STATSD_PROTOCOL: 'udp' }).stats.statsd.protocol).toBe('udp');
    expect(loadSettings(DOG).stats.statsd).toMatchObject({ enabled: true, protocol: 'udp', dogStatsd: true });
    expect(loadSettings({ ...DOG, STATSD_PROTOCOL: 'tcp' }).stats.statsd.protocol).toBe('tcp');
    expect(problems({ STATSD_PROTOCOL: 'quic' })).toMatch(/STATSD_PROTOCOL="quic": expected one of tcp, udp/);
  });

  it('reads the mogrifiers named in USE_DOG_STATSD_MOGRIFIERS, in that order', () => {
    expect(loadSettings(DOG).stats.statsd.mogrifiers).toEqual([
      {
        key: 'TAG',
        pattern: DOG.DOG_STATSD_MOGRIFIER_TAG_PATTERN,
        name: 'ratelimit.service.rate_limit.$3',
        tags: [
          ['domain', '$1'],
          ['descriptor', '$2'],
        ],
      },
    ]);
  });

  it('refuses what upstream refuses: two sinks, a mogrifier without pattern, name, tag key or tag value', () => {
    expect(problems({ USE_DOG_STATSD: 'true' })).toMatch(/USE_DOG_STATSD=true: set USE_STATSD=false/);
    expect(problems({ ...DOG, DOG_STATSD_MOGRIFIER_TAG_PATTERN: '' })).toMatch(
      /DOG_STATSD_MOGRIFIER_TAG_PATTERN: required/,
    );
    expect(problems({ ...DOG, DOG_STATSD_MOGRIFIER_TAG_NAME: '' })).toMatch(
      /DOG_STATSD_MOGRIFIER_TAG_NAME: required/,
    );
    expect(problems({ ...DOG, DOG_STATSD_MOGRIFIER_TAG_TAGS: ':5' })).toMatch(
      /":5" needs both a key and a value/,
    );
    expect(problems({ ...DOG, DOG_STATSD_MOGRIFIER_TAG_TAGS: 'domain:$1,descriptor:' })).toMatch(
      /"descriptor:" needs both/,
    );
    expect(problems({ ...DOG, DOG_STATSD_MOGRIFIER_TAG_PATTERN: '(' })).toMatch(/not a regular expression/);
    expect(problems({ USE_DOG_STATSD_MOGRIFIERS: 'TAG' })).toMatch(/only DogStatsD renames/);
  });

  it('names Prometheus metrics as ours unless PROMETHEUS_NAMING=upstream', () => {
    expect(loadSettings({}).stats.prometheusNaming).toBe('portcullis');
    expect(loadSettings({ PROMETHEUS_NAMING: 'upstream' }).stats.prometheusNaming).toBe('upstream');
    expect(problems({ PROMETHEUS_NAMING: 'statsd' })).toMatch(/expected one of portcullis, upstream/);
  });
});
