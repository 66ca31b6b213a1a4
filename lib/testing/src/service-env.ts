import { mkdir, mkdtemp, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

// What our ratelimit service and upstream's share: the env names of their three servers, and the runtime
// root's layout (`<root>/config/*.yaml`, RUNTIME_SUBDIRECTORY empty).

export interface ServicePorts {
  http: number;
  grpc: number;
  debug: number;
}

/** Free loopback ports for the HTTP, gRPC and debug servers, and the env that puts the servers there. */
export async function loopbackServers(): Promise<{ ports: ServicePorts; env: Record<string, string> }> {
  const ports = { http: await freePort(), grpc: await freePort(), debug: await freePort() };
  const env = {
    HOST: '127.0.0.1',
    GRPC_HOST: '127.0.0.1',
    DEBUG_HOST: '127.0.0.1',
    PORT: String(ports.http),
    GRPC_PORT: String(ports.grpc),
    DEBUG_PORT: String(ports.debug),
  };
  return { ports, env };
}

/** A fresh runtime root holding `files` (name → YAML) in its `config` folder. */
export async function createRuntimeRoot(prefix: string, files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), prefix));
  await mkdir(join(root, 'config'));
  for (const [name, text] of Object.entries(files)) await writeFile(join(root, 'config', name), text);
  return root;
}

/**
 * Replaces `<root>/config/<name>` in one rename, so a watcher never loads half a file. The new content is
 * written beside the folder first: inside it, a dot file would be loaded as configuration too.
 */
export async function replaceRuntimeFile(root: string, name: string, text: string): Promise<void> {
  const staged = join(root, `.${name}.${process.pid}.staged`);
  await writeFile(staged, text);
  await rename(staged, join(root, 'config', name));
}
