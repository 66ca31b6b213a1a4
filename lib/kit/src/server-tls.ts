import { readFile } from 'node:fs/promises';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import { SettingsError } from './errors.js';
import type { Logger } from './log.js';

/** A PEM file and the variable that named it, for the messages. */
export interface TlsFile {
  name: string;
  path: string;
}

export interface ServerTlsFiles {
  cert: TlsFile;
  key: TlsFile;
  /** A CA of client certificates (mTLS); the caller decides whether to ask for one. */
  ca?: TlsFile | undefined;
  /** How often the files are read again for new certificates; 0 = never. */
  reloadIntervalMs: number;
}

/** A TLS server of `node:tls`, `node:https` or `node:http2`. */
export interface SecureContextTarget {
  setSecureContext(options: SecureContextOptions): void;
}

/** The certificates of a TLS server, and `close()` to stop following their files. */
export interface ServerTls {
  /** For the server's constructor: the certificate, key and CA as first read. */
  context: SecureContextOptions;
  /** Gives `server` the certificates read from now on. */
  follow: (server: SecureContextTarget) => void;
  close: () => void;
}

interface PemSet {
  cert: Buffer;
  key: Buffer;
  ca: Buffer | null;
}

function contextOptions(pem: PemSet): SecureContextOptions {
  return { cert: pem.cert, key: pem.key, ...(pem.ca ? { ca: pem.ca } : {}) };
}

function isSame(a: PemSet, b: PemSet): boolean {
  return (
    a.cert.equals(b.cert) &&
    a.key.equals(b.key) &&
    (a.ca === null ? b.ca === null : b.ca !== null && a.ca.equals(b.ca))
  );
}

/**
 * Reads a server's certificate, key and optional CA. A file that cannot be read, or a set that does not make
 * a TLS context (a key of another certificate), throws `SettingsError` naming the variables. Every
 * `reloadIntervalMs` the files are read again, and new certificates (cert-manager or a Secret volume renewing
 * them) serve new connections; connections already open keep theirs. A set that does not make a valid TLS
 * context (a half-written file, a key of another certificate) is logged once and the last good one kept.
 */
export async function loadServerTls(files: ServerTlsFiles, log: Logger): Promise<ServerTls> {
  const read = async (file: TlsFile): Promise<Buffer> => {
    try {
      return await readFile(file.path);
    } catch (err: unknown) {
      throw new SettingsError([
        `${file.name}="${file.path}": cannot read (${(err as NodeJS.ErrnoException).code})`,
      ]);
    }
  };
  const readAll = async (): Promise<PemSet> => {
    const [cert, key, ca] = await Promise.all([
      read(files.cert),
      read(files.key),
      files.ca ? read(files.ca) : null,
    ]);
    return { cert, key, ca };
  };
  let current = await readAll();
  try {
    createSecureContext(contextOptions(current));
  } catch (err: unknown) {
    const names = [files.cert, files.key, ...(files.ca ? [files.ca] : [])].map((f) => f.name);
    throw new SettingsError([`${names.join(', ')}: not a usable TLS set (${(err as Error).message})`]);
  }
  const context = contextOptions(current);
  const servers: SecureContextTarget[] = [];
  const follow = (server: SecureContextTarget): void => {
    servers.push(server);
  };
  if (files.reloadIntervalMs <= 0) return { context, follow, close: () => undefined };

  let rejected: PemSet | undefined;
  const reload = async (): Promise<void> => {
    const next = await readAll();
    if (isSame(next, current) || (rejected && isSame(next, rejected))) return;
    try {
      createSecureContext(contextOptions(next));
    } catch (err: unknown) {
      rejected = next;
      log.warn({ err }, 'new TLS files do not make a valid TLS context; keeping the last good ones');
      return;
    }
    current = next;
    rejected = undefined;
    for (const server of servers) server.setSecureContext(contextOptions(next));
    log.info('TLS certificates reloaded');
  };
  let reloading = false;
  const timer = setInterval(() => {
    if (reloading) return;
    reloading = true;
    reload()
      .catch((err: unknown) => log.warn({ err }, 'cannot read the TLS files; keeping the last good ones'))
      .finally(() => (reloading = false));
  }, files.reloadIntervalMs);
  timer.unref();
  return { context, follow, close: () => clearInterval(timer) };
}
