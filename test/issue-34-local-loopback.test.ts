import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile, readlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitUntil } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localEnv, localServices, type LocalService } from '../hack/local-services.js';
import { movedLocalPorts } from './local-ports.js';

// Issue 34, finding 18: `npm start` listened on 0.0.0.0 for every port, the ratelimit's debug port (profiles,
// heap snapshots) included.

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const STARTUP_MS = 120_000;

/** A listening TCP socket: its address as `host:port` and its inode. */
interface Listener {
  address: string;
  inode: string;
}

/** Every listening socket of the machine, from /proc/net/tcp and tcp6. */
async function listeners(): Promise<Listener[]> {
  const out: Listener[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const lines = (await readFile(file, 'utf8')).trim().split('\n').slice(1);
    for (const line of lines) {
      const f = line.trim().split(/\s+/);
      const [local, state, inode] = [f[1] ?? '', f[3], f[9] ?? ''];
      if (state !== '0A') continue;
      const [hex = '', port = '0'] = local.split(':');
      out.push({ address: `${host(hex)}:${parseInt(port, 16)}`, inode });
    }
  }
  return out;
}

/** `0100007F` is 127.0.0.1 (little-endian words); an IPv6 address is shown as `::`, `::1` or its hex. */
function host(hex: string): string {
  if (hex.length === 8) return [6, 4, 2, 0].map((i) => parseInt(hex.slice(i, i + 2), 16)).join('.');
  if (/^0+$/.test(hex)) return '::';
  return hex === '00000000000000000000000001000000' ? '::1' : hex;
}

/** The socket inodes held by `pid` and every process below it (tsx runs the service in a child of its own). */
async function socketInodes(pid: number): Promise<Set<string>> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    parents.set(Number(entry), ppid);
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) {
    for (const [child, parent] of parents) if (parent === tree[i]) tree.push(child);
  }
  const inodes = new Set<string>();
  for (const p of tree) {
    const fds = await readdir(`/proc/${p}/fd`).catch(() => []);
    for (const fd of fds) {
      const target = await readlink(`/proc/${p}/fd/${fd}`).catch(() => '');
      const m = /^socket:\[(\d+)\]$/.exec(target);
      if (m?.[1]) inodes.add(m[1]);
    }
  }
  return inodes;
}

describe('issue 34: npm start listens on 127.0.0.1 only', () => {
  const children = new Map<string, ChildProcess>();
  let ports: Awaited<ReturnType<typeof movedLocalPorts>>;

  const start = (service: LocalService) => {
    // as hack/local-up.ts does, with only the ports moved as a caller would move them
    const callerEnv = { PATH: process.env.PATH, HOME: process.env.HOME, ...ports.env[service.name] };
    const child = spawn(join(root, 'node_modules/.bin/tsx'), [join(root, service.entry)], {
      env: localEnv(service, callerEnv),
      stdio: 'ignore',
    });
    children.set(service.name, child);
    const url = service.health(localEnv(service, callerEnv));
    return waitUntil(async () => (await fetch(url).catch(() => undefined))?.ok === true, STARTUP_MS);
  };

  beforeAll(async () => {
    ports = await movedLocalPorts();
    const [operator, ...rest] = localServices(root);
    if (operator) await start(operator);
    await Promise.all(rest.map(start));
  }, 2 * STARTUP_MS);
  afterAll(async () => {
    await Promise.all(
      [...children.values()].map(
        (c) =>
          new Promise((resolve) => {
            if (c.exitCode !== null || c.signalCode !== null) resolve(null);
            else {
              c.once('exit', resolve);
              c.kill('SIGTERM');
            }
          }),
      ),
    );
  }, 30_000);

  it('binds every listening socket of every service to 127.0.0.1', async () => {
    const owned = async () => {
      const inodes = new Set<string>();
      for (const c of children.values()) for (const i of await socketInodes(c.pid ?? 0)) inodes.add(i);
      return (await listeners()).filter((l) => inodes.has(l.inode)).map((l) => l.address);
    };
    // the ratelimit opens gRPC after its HTTP port answers: wait for every port asked for
    await waitUntil(async () => {
      const bound = (await owned()).map((a) => Number(a.slice(a.lastIndexOf(':') + 1)));
      return ports.all.every((p) => bound.includes(p));
    }, 30_000).catch(() => undefined);
    const addresses = await owned();
    expect(addresses.map((a) => Number(a.slice(a.lastIndexOf(':') + 1))).sort()).toEqual(
      [...ports.all].sort(),
    );
    expect(addresses.filter((a) => !a.startsWith('127.0.0.1:'))).toEqual([]);
  });

  it("lets the caller's environment win, to open a port on purpose", () => {
    const ratelimit = localServices(root).find((s) => s.name === 'ratelimit');
    if (!ratelimit) throw new Error('npm start runs no ratelimit');
    expect(localEnv(ratelimit, {})).toMatchObject({ HOST: '127.0.0.1', DEBUG_HOST: '127.0.0.1' });
    expect(localEnv(ratelimit, { HOST: '0.0.0.0' })).toMatchObject({
      HOST: '0.0.0.0',
      GRPC_HOST: '127.0.0.1',
    });
  });
});
