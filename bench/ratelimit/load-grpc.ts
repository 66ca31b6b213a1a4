import { credentials, status, type Client, type ClientUnaryCall, type ServiceError } from '@grpc/grpc-js';
import type { Call } from '../common/drive.js';
import { loadRateLimitService, SPREAD_WORKLOAD, type Workload } from './rls-proto.js';

const READY_TIMEOUT_MS = 10_000;

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

export interface GrpcLoad {
  call: Call;
  close(): void;
}

/**
 * `channels` clients, each with its own connection (a local subchannel pool), calling ShouldRateLimit in
 * turn. A right answer is status OK with `overallCode` and one status of the workload's expected code.
 */
export async function createGrpcLoad(
  port: number,
  channels: number,
  workload: Workload = SPREAD_WORKLOAD,
): Promise<GrpcLoad> {
  const Service = loadRateLimitService();
  const clients = Array.from(
    { length: channels },
    () =>
      new Service(`127.0.0.1:${port}`, credentials.createInsecure(), {
        'grpc.use_local_subchannel_pool': 1,
      }) as unknown as RateLimitClient,
  );
  await Promise.all(
    clients.map(
      (c) =>
        new Promise<void>((resolve, reject) =>
          c.waitForReady(Date.now() + READY_TIMEOUT_MS, (err) => (err ? reject(err) : resolve())),
        ),
    ),
  );
  const { requests, expectedCode } = workload;
  const call: Call = (i) =>
    new Promise((resolve) => {
      const client = clients[i % clients.length]!;
      client.ShouldRateLimit(requests[i % requests.length]!, (err, answer) => {
        if (err) resolve(`gRPC ${status[err.code]}: ${err.details}`);
        else if (answer?.overallCode !== expectedCode)
          resolve(`overallCode ${answer?.overallCode ?? 'unset'}`);
        else if (answer.statuses?.length !== 1 || answer.statuses[0]?.code !== expectedCode)
          resolve(`statuses not [${expectedCode}]`);
        else resolve(undefined);
      });
    });
  return { call, close: () => clients.forEach((c) => c.close()) };
}
