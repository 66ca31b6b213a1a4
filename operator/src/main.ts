import { runMain, startTracing } from '@portcullis/kit';
import { startOperator } from './app.js';
import { loadLogSettings, loadSettings } from './settings.js';

await runMain({
  name: 'operator',
  loadSettings: () => loadSettings(),
  loadLogSettings: () => loadLogSettings(),
  start: async (settings, log) => {
    const tracing = startTracing(settings.tracing);
    const app = await startOperator(settings, { log });
    return {
      ports: app.ports,
      close: async () => {
        await app.close();
        // last, so the spans of the shutdown itself are exported too
        await tracing?.close();
      },
    };
  },
  describeReady: ({ ports }, s) =>
    `xDS on ${s.xds.host}:${ports.xds}, health on ${s.health.host}:${ports.health}, metrics on ${s.metrics.host}:${ports.metrics}`,
});
