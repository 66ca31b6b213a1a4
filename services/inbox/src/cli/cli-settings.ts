import { homedir } from 'node:os';
import { join } from 'node:path';

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

export function loadCliSettings(env: NodeJS.ProcessEnv = process.env): Readonly<CliSettings> {
  const nonEmpty = (v: string | undefined): string | undefined =>
    v === undefined || v === '' ? undefined : v;
  const configHome = nonEmpty(env.XDG_CONFIG_HOME) ?? join(homedir(), '.config');
  return Object.freeze({
    inboxUrl: nonEmpty(env.INBOX_URL),
    token: nonEmpty(env.INBOX_TOKEN),
    configPath: nonEmpty(env.INBOX_CONFIG) ?? join(configHome, 'portcullis', 'inbox.json'),
  });
}
