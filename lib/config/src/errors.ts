import { PortcullisError } from '@portcullis/kit';

/**
 * A configuration was rejected. `problems` holds every problem found, each as
 * `<source>: <path>: <message>`; the message joins them one per line, and the same text goes to logs, CR
 * status and xDS NACKs.
 */
export class ConfigError extends PortcullisError {
  readonly code = 'CONFIG_INVALID';

  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
  }
}
