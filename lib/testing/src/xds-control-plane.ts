import { rename, writeFile } from 'node:fs/promises';
import { spawnLogged } from './logged-process.js';
import { peerPath } from './peers.js';
import { isDefined, waitFor } from './wait.js';

// `xds-control-plane` (hack/peers/xds-control-plane: a go-control-plane SotW ADS server serving
// RateLimitConfig resources from a file) as a child process: an xDS server that is not ours.

/**
 * One JSON line of its stderr (slog): `msg` is `snapshot set`, `config rejected`, `request`, `ack`, `nack`
 * or `response`; requests, ACKs and NACKs carry `stream`, `node`, `version`, `nonce` (NACKs `error`),
 * responses `version`, `nonce`, `resources`.
 */
export interface XdsControlPlaneEvent {
  msg: string;
  level: string;
  stream?: number;
  node?: string;
  version?: string;
  nonce?: string;
  error?: string;
  resources?: number;
  [field: string]: unknown;
}

export interface XdsControlPlane {
  /** `127.0.0.1:<port>`, for CONFIG_GRPC_XDS_SERVER_URL. */
  address: string;
  configPath: string;
  /** Every event so far, oldest first. */
  events(): XdsControlPlaneEvent[];
  /** The first event (from the `from`-th on) that `match` accepts; throws with its log after `timeoutMs`. */
  waitForEvent(
    match: (e: XdsControlPlaneEvent) => boolean,
    opts?: { from?: number; timeoutMs?: number },
  ): Promise<XdsControlPlaneEvent>;
  /** Writes `configs` (a list of RateLimitConfig in proto3 JSON) to the config file in one rename. */
  writeConfig(configs: readonly unknown[]): Promise<void>;
  stop(): Promise<void>;
}

/** Writes a config file the way `XdsControlPlane.writeConfig` does, e.g. before starting it. */
export async function writeXdsConfig(path: string, configs: readonly unknown[]): Promise<void> {
  await writeFile(`${path}.staged`, JSON.stringify(configs));
  await rename(`${path}.staged`, path);
}

/** Starts it on a free loopback port serving the file at `configPath` (which must exist). */
export async function startXdsControlPlane(opts: {
  configPath: string;
  startTimeoutMs?: number;
}): Promise<XdsControlPlane> {
  const p = spawnLogged(
    peerPath('xds-control-plane'),
    ['-config', opts.configPath, '-listen', '127.0.0.1:0'],
    {},
  );
  const events: XdsControlPlaneEvent[] = [];
  p.onStderrLine((line) => {
    if (!line.startsWith('{')) return;
    try {
      events.push(JSON.parse(line) as XdsControlPlaneEvent);
    } catch {
      // a line cut by the process dying: the output keeps it
    }
  });
  const context = (): string => p.output().slice(-3000);
  let address: string;
  try {
    address = await waitFor(
      () => {
        if (p.child.exitCode !== null) throw new Error(`xds-control-plane exited: ${p.output()}`);
        return /listening on (\S+)/.exec(p.output())?.[1];
      },
      isDefined,
      { timeoutMs: opts.startTimeoutMs ?? 15_000, what: 'xds-control-plane listening', context },
    );
  } catch (err: unknown) {
    await p.stop();
    throw err;
  }
  return {
    address,
    configPath: opts.configPath,
    events: () => events.slice(),
    waitForEvent: (match, o = {}) =>
      waitFor(() => events.slice(o.from ?? 0).find(match), isDefined, {
        timeoutMs: o.timeoutMs ?? 15_000,
        what: 'an xds-control-plane event',
        context,
      }),
    writeConfig: (configs) => writeXdsConfig(opts.configPath, configs),
    stop: () => p.stop(),
  };
}
