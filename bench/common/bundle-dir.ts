import { fileURLToPath } from 'node:url';

/**
 * Where the bench writes the services' bundles: under the repository's node_modules, so that their package
 * imports resolve as in the image.
 */
export const SERVICE_BUNDLE_DIR = fileURLToPath(
  new URL('../../node_modules/.cache/portcullis-bench/dist', import.meta.url),
);
