import { defineError, type ErrorClass } from '@portcullis/kit';

/**
 * A configuration was rejected. `problems` holds every problem found, each as
 * `<source>: <path>: <message>`; the message joins them one per line, and the same text goes to logs, CR
 * status and xDS NACKs.
 */
export class ConfigError extends defineError('CONFIG_INVALID') {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
  }
}

/**
 * A valid rate-limit configuration that upstream's xDS message cannot carry (it uses `YAML_ONLY_KEYS`): it
 * works from a YAML file but not as a RateLimitConfig resource served over xDS. `problems` as `ConfigError`.
 */
export class NotSupportedOverXdsError extends defineError('CONFIG_NOT_SUPPORTED_OVER_XDS') {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
  }
}

/** This package's registry: each class with its code and status (500: never answered as itself). */
export const CONFIG_ERRORS: readonly ErrorClass[] = [ConfigError, NotSupportedOverXdsError];
