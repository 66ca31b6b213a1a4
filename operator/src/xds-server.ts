import type { Logger, Part } from '@portcullis/kit';
import { createSotwServer, type SotwServer } from '@portcullis/xds';
import { typeLabel, type OperatorMetrics } from './metrics.js';
import type { Settings } from './settings.js';

/** The SOTW server every replica serves its snapshot from; it listens when its part starts. */
export function createXdsServer(settings: Settings['xds'], log: Logger): SotwServer {
  const { tls } = settings;
  return createSotwServer({
    host: settings.host,
    port: settings.port,
    log,
    ...(tls.cert
      ? { tls: { cert: tls.cert, key: tls.key, ...(tls.clientCa ? { clientCa: tls.clientCa } : {}) } }
      : {}),
  });
}

/** Counts the server's ACKs, NACKs and responses by type, and logs each NACK. */
export function countXdsMessages(xds: SotwServer, metrics: OperatorMetrics, log: Logger): void {
  xds.on('ack', (e) => metrics.acks.inc({ type: typeLabel(e.typeUrl) }));
  xds.on('response', (e) => {
    metrics.responses.inc({ type: typeLabel(e.typeUrl) });
    metrics.responseBytes.inc({ type: typeLabel(e.typeUrl) }, e.bytes);
  });
  xds.on('nack', (e) => {
    metrics.nacks.inc({ type: typeLabel(e.typeUrl) });
    log.warn(
      { nodeId: e.nodeId, typeUrl: e.typeUrl, version: e.version, problem: e.message },
      'xDS client rejected a snapshot',
    );
  });
}

export function createXdsServerPart(xds: SotwServer): Part {
  return { name: 'xds server', start: () => xds.start(), close: () => xds.close() };
}
