import cluster from 'node:cluster';
import { runMainWithWorkers, startTracing, type Logger } from '@portcullis/kit';
import { startRateLimit } from './app.js';
import { loadLogSettings, loadSettings, type Settings } from './settings.js';
import { startPrimary } from './workers/primary.js';
import { answerProfileRequests } from './workers/profile-answers.js';
import { answerPrimary, reportFinal } from './workers/worker-link.js';

const worker = cluster.worker;

await runMainWithWorkers({
  name: 'ratelimit',
  loadSettings: () => loadSettings(),
  loadLogSettings: () => loadLogSettings(),
  workers: (s) => ({ setting: s.workers, stateInProcess: s.limiter.backendType === 'memory' }),
  startPrimary,
  startService,
  // said by the primary (it serves the debug port) or the only process, not by each worker
  describeReady: (_app, s) =>
    worker
      ? undefined
      : `gRPC on ${s.grpc.host}:${s.grpc.port}, HTTP on ${s.http.host}:${s.http.port}, debug on ${s.debug.host}:${s.debug.port}`,
});

/** The service in this process: alone, or as one of the primary's workers. */
async function startService(settings: Readonly<Settings>, log: Logger) {
  const tracing = startTracing(settings.tracing);
  const app = await startRateLimit(settings, { log, worker: worker !== undefined });
  if (worker) {
    answerPrimary(app);
    answerProfileRequests(log);
  }
  return {
    beginShutdown: () => app.health.set('sigterm', false),
    close: async () => {
      await app.close();
      await tracing?.close();
      if (worker) await reportFinal(app);
    },
  };
}
