import { credentials, status, type Client, type ClientUnaryCall, type ServiceError } from '@grpc/grpc-js';
import { createH2load } from '../common/h2load.js';
import { checkSample } from '../common/sample-check.js';
import type { ToolLoad } from '../common/tool-load.js';
import { encodeGrpcFrame, loadRateLimitService, type Workload } from './rls-proto.js';

const READY_TIMEOUT_MS = 10_000;
const METHOD_PATH = '/envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit';

interface RateLimitAnswer {
  overallCode?: string;
  statuses?: Array<{ code?: string }>;
}

interface RateLimitClient extends Client {
  ShouldRateLimit(
    request: object,
    callback: (err: ServiceError | null, answer?: RateLimitAnswer) => void,
  ): ClientUnaryCall;
}

export interface GrpcLoadOptions {
  connections: number;
  streamsPerConnection: number;
}

/**
 * ShouldRateLimit driven by h2load, the workload's request pre-encoded as one gRPC frame. Before each run,
 * a few grpc-js calls check what h2load cannot: status OK, and `overallCode` and one status per descriptor,
 * each of the workload's expected code.
 */
export async function createGrpcLoad(
  port: number,
  workload: Workload,
  o: GrpcLoadOptions,
): Promise<ToolLoad> {
  const h2load = await createH2load({
    port,
    path: METHOD_PATH,
    body: encodeGrpcFrame(workload.request),
    headers: { 'content-type': 'application/grpc', te: 'trailers' },
    ...o,
  });
  return {
    run: (durationMs) => h2load.run(durationMs),
    checkSample: () => checkGrpcSample(port, workload),
    close: () => h2load.close(),
  };
}

async function checkGrpcSample(port: number, workload: Workload): Promise<Map<string, number>> {
  const Service = loadRateLimitService();
  const client = new Service(`127.0.0.1:${port}`, credentials.createInsecure()) as unknown as RateLimitClient;
  try {
    await new Promise<void>((resolve, reject) =>
      client.waitForReady(Date.now() + READY_TIMEOUT_MS, (err) => (err ? reject(err) : resolve())),
    );
    return await checkSample(() => callOnce(client, workload));
  } finally {
    client.close();
  }
}

function callOnce(client: RateLimitClient, { request, expectedCode }: Workload): Promise<string | undefined> {
  return new Promise((resolve) => {
    client.ShouldRateLimit(request, (err, answer) => {
      if (err) resolve(`gRPC ${status[err.code]}: ${err.details}`);
      else if (answer?.overallCode !== expectedCode) resolve(`overallCode ${answer?.overallCode ?? 'unset'}`);
      else if (
        answer.statuses?.length !== request.descriptors.length ||
        answer.statuses.some((s) => s.code !== expectedCode)
      )
        resolve(`statuses not ${request.descriptors.length} × ${expectedCode}`);
      else resolve(undefined);
    });
  });
}
