import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BenchTool } from '../common/load-tools.js';
import { spawnChild, type Child } from '../common/child-process.js';
import { distinctFreePorts } from '../common/ports.js';
import type { OnCleanup } from '../common/run-bench.js';
import { waitForHttpOk } from '../common/wait-for-http.js';

/** Debian's nginx, the proxy the gateway's upstream route is compared with. */
export const NGINX: BenchTool = { command: '/usr/sbin/nginx', debianPackage: 'nginx' };
const READY_TIMEOUT_MS = 10_000;
/** Idle keep-alive connections each nginx worker keeps to the backend: as many as wrk opens. */
const UPSTREAM_KEEPALIVE = 64;

/**
 * nginx's configuration for the bench: `processes` workers proxying everything to the backend over
 * keep-alive connections, no access log, the error log, pid file and temporary files under `dir`, in the
 * foreground (the bench stops it), as the current user.
 */
export function nginxConfig(o: {
  dir: string;
  port: number;
  backendPort: number;
  processes: number;
}): string {
  const temp = (name: string) => join(o.dir, name);
  return `
worker_processes ${o.processes};
daemon off;
pid ${temp('nginx.pid')};
error_log ${temp('error.log')} warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${temp('client_body')};
  proxy_temp_path ${temp('proxy')};
  fastcgi_temp_path ${temp('fastcgi')};
  uwsgi_temp_path ${temp('uwsgi')};
  scgi_temp_path ${temp('scgi')};
  upstream backend {
    server 127.0.0.1:${o.backendPort};
    keepalive ${UPSTREAM_KEEPALIVE};
  }
  server {
    listen 127.0.0.1:${o.port};
    location / {
      proxy_pass http://backend;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
}
`;
}

/**
 * nginx with `processes` workers in front of the backend, from a configuration written under `dir`;
 * resolves once `probePath` answers 200 through it. Stopped by `onCleanup`.
 */
export async function startNginx(
  o: { name: string; dir: string; backendPort: number; processes: number; probePath: string },
  onCleanup: OnCleanup,
): Promise<{ child: Child; port: number }> {
  const [port] = (await distinctFreePorts(1)) as [number];
  await mkdir(o.dir, { recursive: true });
  const conf = join(o.dir, 'nginx.conf');
  await writeFile(conf, nginxConfig({ ...o, port }));
  // -e: the error log before the configuration is read (the default is under /var/log, not writable)
  const child = spawnChild({
    name: o.name,
    command: NGINX.command,
    args: ['-p', o.dir, '-c', conf, '-e', join(o.dir, 'error.log')],
  });
  onCleanup(() => child.stop());
  await waitForHttpOk(`http://127.0.0.1:${port}${o.probePath}`, child, READY_TIMEOUT_MS);
  return { child, port };
}
