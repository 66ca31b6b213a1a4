import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const INSTALL_SCRIPT = 'hack/install-schemathesis.sh';

/** The pinned version: the `version=` line of hack/install-schemathesis.sh, its one spelling. */
export function schemathesisVersion(): string {
  const m = /^version=(\S+)$/m.exec(readFileSync(`${ROOT}${INSTALL_SCRIPT}`, 'utf8'));
  if (!m?.[1]) throw new Error(`${INSTALL_SCRIPT}: no version= line`);
  return m[1];
}

/**
 * The `st` binary of the pinned Schemathesis, installed into .cache by hack/install-schemathesis.sh (which
 * .ci/run calls). Throws, naming that command, when it is missing: the contract test never skips.
 */
export function schemathesisPath(): string {
  const version = schemathesisVersion();
  const path = `${ROOT}.cache/schemathesis/${version}/bin/st`;
  if (!existsSync(path)) {
    throw new Error(`Schemathesis ${version} is not installed at ${path}: run bash ${INSTALL_SCRIPT}`);
  }
  return path;
}
