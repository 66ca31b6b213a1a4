import { homedir } from 'node:os';
import { join } from 'node:path';
import { createEnvReader, deepFreeze, type EnvSource } from '@portcullis/kit';

// The CLI's environment, read once by main.ts: where the inbox is, where endpoints are remembered, and a
// token to fall back on.

export const DEFAULT_INBOX_URL = 'http://localhost:8089';

export interface CliSettings {
  /** `INBOX_URL`, when set; `--host` wins over it. */
  inboxUrl: string | undefined;
  /** `INBOX_TOKEN`, when set; `--token` wins over it. */
  token: string | undefined;
  /** `INBOX_CONFIG`, else `$XDG_CONFIG_HOME/portcullis/inbox.json`, else `~/.config/portcullis/inbox.json`. */
  configPath: string;
}

export function loadCliSettings(source: EnvSource = process.env): Readonly<CliSettings> {
  const env = createEnvReader(source);
  const nonEmpty = (v: string): string | undefined => (v === '' ? undefined : v);
  const configHome = env.str('XDG_CONFIG_HOME', { default: join(homedir(), '.config') });
  return deepFreeze({
    inboxUrl: nonEmpty(env.str('INBOX_URL')),
    token: nonEmpty(env.str('INBOX_TOKEN')),
    configPath: env.str('INBOX_CONFIG', { default: join(configHome, 'portcullis', 'inbox.json') }),
  });
}
