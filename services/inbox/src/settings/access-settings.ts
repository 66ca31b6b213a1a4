import type { EnvReader } from '@portcullis/kit';
import { decodeSecretsKey } from '../signatures/secret-box.js';

const MIN_ADMIN_TOKEN_CHARS = 32;

/** What the inbox hands out and what opens it beyond an endpoint's own token. */
export interface AccessSettings {
  /** Origin (and optional path) receive URLs are built on, without a trailing slash. */
  publicUrl: string;
  /** Reads every endpoint, including those of InboxEndpoint resources; empty: no admin access. */
  adminToken: string;
  /**
   * The AES-256-GCM key sealing signature secrets at rest: 64 hex digits or 32 bytes of base64. Empty: a
   * random key per process on the memory store; with Redis, secrets are refused (503 SECRETS_KEY_MISSING).
   */
  secretsKey: string;
}

export function readAccessSettings(env: EnvReader): AccessSettings {
  const publicUrl = env
    .str('INBOX_PUBLIC_URL', { default: 'http://localhost:8089' })
    .replace(/(?<!\/)\/+$/, '');
  if (!isHttpUrl(publicUrl)) {
    env.problem(`INBOX_PUBLIC_URL=${JSON.stringify(publicUrl)}: expected an absolute http or https URL`);
  }
  const adminToken = env.str('INBOX_ADMIN_TOKEN');
  if (adminToken !== '' && adminToken.length < MIN_ADMIN_TOKEN_CHARS) {
    env.problem(`INBOX_ADMIN_TOKEN: at least ${MIN_ADMIN_TOKEN_CHARS} characters`);
  }
  const secretsKey = env.str('INBOX_SECRETS_KEY');
  if (secretsKey !== '' && decodeSecretsKey(secretsKey) === undefined) {
    env.problem('INBOX_SECRETS_KEY: expected 32 bytes as 64 hex digits or base64 (openssl rand -hex 32)');
  }
  return { publicUrl, adminToken, secretsKey };
}

function isHttpUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.search === '' && u.hash === '';
  } catch {
    return false;
  }
}
