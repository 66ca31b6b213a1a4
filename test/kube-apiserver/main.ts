/**
 * Starts the test API server for manual kubectl use:
 *   npx tsx test/kube-apiserver/main.ts [port] [crd-dir ...]
 * CRDs come from the given directories, else from crds/ at the repository root when it exists.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createLogger } from '@portcullis/kit';
import { startKubeApiServer } from './index.js';

const [portArg, ...dirArgs] = process.argv.slice(2);
const port = portArg === undefined ? 0 : Number(portArg);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write(`port ${JSON.stringify(portArg)}: expected an integer from 0 to 65535\n`);
  process.exit(2);
}
const defaultDir = fileURLToPath(new URL('../../crds', import.meta.url));
const crdDirs = dirArgs.length ? dirArgs : existsSync(defaultDir) ? [defaultDir] : [];

const server = await startKubeApiServer({
  port,
  crdDirs,
  log: createLogger({ level: process.env['LOG_LEVEL'] === 'debug' ? 'debug' : 'info', format: 'text' }),
});
process.stdout.write(`${server.url}\nexport KUBECONFIG=${server.kubeconfigPath}\n`);

const stop = (): void => {
  void server.close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
