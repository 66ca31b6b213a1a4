import { createErrorMapper } from './error-mapper.js';
import { PROFILE_ERRORS } from './errors.js';
import type { EnvReader } from './env.js';
import { createHttpApp, listenHttp, type RunningServer } from './http-app.js';
import type { Part } from './lifecycle.js';
import type { Logger } from './log.js';
import { addProfileRoutes } from './profiles.js';

/** Where a service serves `/debug/pprof/` on a port of its own; undefined: nowhere (the default). */
export interface ProfileListener {
  host: string;
  /** 0: any free port (tests). */
  port: number;
  /** The variable that sets the port, named when it is taken. */
  setting: string;
}

/**
 * The profile listener from variables the caller names whole (`GATEWAY_DEBUG_HOST`, `GATEWAY_DEBUG_PORT`):
 * none while the port is unset; the host is `127.0.0.1` unless set, so only `kubectl port-forward` (or
 * someone in the pod) reaches it.
 */
export function readProfileListener(
  env: EnvReader,
  names: { host: string; port: string },
): ProfileListener | undefined {
  const host = env.str(names.host, { default: '127.0.0.1' });
  if (env.str(names.port) === '') return undefined;
  return { host, port: env.int(names.port, { default: 0, min: 0, max: 65_535 }), setting: names.port };
}

/**
 * The part that serves kit's `/debug/pprof/` routes, alone, on `listener` (a port no client reaches: never a
 * public one); nothing without a listener. Start it first, so it closes last and a profile can watch the rest
 * of start-up and shutdown. `port` is the bound port once started.
 */
export function createProfileServerPart(
  listener: ProfileListener | undefined,
  log: Logger,
): Part & { readonly port: number | undefined } {
  let server: RunningServer | undefined;
  return {
    name: 'profile server',
    get port() {
      return server?.port;
    },
    start: async () => {
      if (!listener) return;
      const plog = log.child({ component: 'profiles' });
      const app = createHttpApp(plog, createErrorMapper(PROFILE_ERRORS));
      addProfileRoutes(app, plog);
      server = await listenHttp(app, listener);
      plog.info({ host: listener.host, port: server.port }, 'profiles served');
    },
    close: () => server?.close(),
  };
}
