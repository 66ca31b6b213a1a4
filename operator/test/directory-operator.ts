import type { Logger } from '@portcullis/kit';
import { quietLog } from '@portcullis/testing';
import { startOperator, type OperatorApp } from '../src/app.js';
import { loadSettings } from '../src/settings.js';

/**
 * The operator's environment in directory mode: the manifests in `dir`, xDS, health and metrics on loopback
 * ports the system picks (read them back from `app.ports`), `env` on top (a fixed port, more settings).
 */
export function directoryOperatorEnv(dir: string, env: Record<string, string> = {}): Record<string, string> {
  return {
    OPERATOR_SOURCE: 'directory',
    OPERATOR_MANIFESTS_DIR: dir,
    XDS_HOST: '127.0.0.1',
    XDS_PORT: '0',
    HEALTH_HOST: '127.0.0.1',
    HEALTH_PORT: '0',
    METRICS_HOST: '127.0.0.1',
    METRICS_PORT: '0',
    ...env,
  };
}

export interface DirectoryOperatorOptions {
  /** Settings on top of `directoryOperatorEnv`'s. */
  env?: Record<string, string>;
  /** The operator's log (quiet by default). */
  log?: Logger;
}

/** The operator in this process, in directory mode on `dir` (see `directoryOperatorEnv`); `close()` it. */
export function startDirectoryOperator(dir: string, o: DirectoryOperatorOptions = {}): Promise<OperatorApp> {
  return startOperator(loadSettings(directoryOperatorEnv(dir, o.env)), { log: o.log ?? quietLog });
}
