import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '@portcullis/kit';

export interface Keys {
  jwtSecret: string;
  sessionKeys: string[];
}

/**
 * The JWT secret and session keys. In a cluster they come from the Secret the operator creates (as
 * environment variables); in local mode, without them, they are generated on first start and kept in
 * `<stateDir>/gateway-keys.json` (mode 0600) so tokens and sessions survive a restart.
 */
export async function loadKeys(o: {
  jwtSecret: string;
  sessionKeys: string[];
  stateDir: string;
  log: Logger;
}): Promise<Keys> {
  if (o.jwtSecret !== '' && o.sessionKeys.length > 0)
    return { jwtSecret: o.jwtSecret, sessionKeys: o.sessionKeys };
  const file = join(o.stateDir, 'gateway-keys.json');
  let stored: Partial<Keys> = {};
  try {
    stored = JSON.parse(await readFile(file, 'utf8')) as Partial<Keys>;
  } catch (err: unknown) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const keys: Keys = {
    jwtSecret: o.jwtSecret || stored.jwtSecret || randomBytes(48).toString('base64url'),
    sessionKeys:
      o.sessionKeys.length > 0
        ? o.sessionKeys
        : (stored.sessionKeys ?? [randomBytes(48).toString('base64url')]),
  };
  if (
    keys.jwtSecret !== stored.jwtSecret ||
    JSON.stringify(keys.sessionKeys) !== JSON.stringify(stored.sessionKeys)
  ) {
    await mkdir(o.stateDir, { recursive: true });
    await writeFile(file, JSON.stringify(keys), { mode: 0o600 });
    o.log.info({ file }, 'generated keys saved');
  }
  return keys;
}
