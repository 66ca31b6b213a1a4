import { fileURLToPath } from 'node:url';
import { buildDist, ENTRIES } from '../../hack/build-dist.js';
import { SERVICE_BUNDLE_DIR } from './bundle-dir.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ServiceBundle {
  script: string;
  /** What the image's environment sets for every service (the Dockerfile's `ENV`). */
  env: Readonly<Record<string, string>>;
}

let built: Promise<unknown> | undefined;

/**
 * The bundle the container image runs for `entry` (`npm run build:dist`), built once per bench run from the
 * working tree, so a service is measured as users run it: not through tsx's loader, whose transform wraps
 * every named function in a call made each time the function is created.
 */
export async function serviceBundle(entry: string): Promise<ServiceBundle> {
  if (!(entry in ENTRIES))
    throw new Error(`no bundle "${entry}": build-dist makes ${Object.keys(ENTRIES).join(', ')}`);
  await (built ??= buildDist(SERVICE_BUNDLE_DIR));
  return {
    script: `${SERVICE_BUNDLE_DIR}/${entry}.mjs`,
    env: { NODE_ENV: 'production', LOG_FORMAT: 'json', PORTCULLIS_PROTO_DIR: `${REPO_ROOT}protos` },
  };
}
