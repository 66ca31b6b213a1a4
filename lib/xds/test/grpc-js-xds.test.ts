import {
  Client,
  Server,
  ServerCredentials,
  credentials,
  status as GrpcStatus,
  type ServiceError,
} from '@grpc/grpc-js';
import { register } from '@grpc/grpc-js-xds';
import { createMessageCodec, type MessageCodec } from '@portcullis/protos';
import { freePort, waitUntil } from '@portcullis/testing';
import type { SotwServer, SotwServerEvents, XdsResource } from '@portcullis/xds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from './harness.js';

/**
 * A third-party client: @grpc/grpc-js-xds resolves `xds:///echo.test` through our server (ADS, explicit
 * names, LDS → RDS → CDS → EDS) and then calls a plain gRPC echo server at the endpoint we handed out.
 */

const codec = (file: string, type: string): MessageCodec => createMessageCodec(file, type);
const listenerCodec = codec('envoy/config/listener/v3/listener.proto', 'envoy.config.listener.v3.Listener');
const hcmCodec = codec(
  'envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.proto',
  'envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager',
);
const routerCodec = codec(
  'envoy/extensions/filters/http/router/v3/router.proto',
  'envoy.extensions.filters.http.router.v3.Router',
);
const routeCodec = codec('envoy/config/route/v3/route.proto', 'envoy.config.route.v3.RouteConfiguration');
const clusterCodec = codec('envoy/config/cluster/v3/cluster.proto', 'envoy.config.cluster.v3.Cluster');
const endpointCodec = codec(
  'envoy/config/endpoint/v3/endpoint.proto',
  'envoy.config.endpoint.v3.ClusterLoadAssignment',
);

/** protobufjs defines google.protobuf.Any itself, with the snake_case `type_url`. */
const toAny = (c: MessageCodec, message: Record<string, unknown>) => ({
  type_url: c.typeUrl,
  value: c.encode(message),
});
const named = (c: MessageCodec, name: string, message: Record<string, unknown>): XdsResource => ({
  name,
  value: c.encode({ name, ...message }),
});
const ads = { ads: {}, resourceApiVersion: 'V3' };

function cluster(withEds: boolean): XdsResource {
  return named(clusterCodec, 'cluster-echo', {
    type: 'EDS',
    lbPolicy: 'ROUND_ROBIN',
    ...(withEds ? { edsClusterConfig: { edsConfig: ads, serviceName: 'eds-echo' } } : {}),
  });
}

const echo = (client: Client, text: string) =>
  new Promise<string>((resolve, reject) =>
    client.makeUnaryRequest(
      '/test.Echo/Echo',
      (b: Buffer) => b,
      (b: Buffer) => b,
      Buffer.from(text),
      { deadline: Date.now() + 10_000 },
      (err: ServiceError | null, reply?: Buffer) => (err ? reject(err) : resolve(`${reply?.toString()}`)),
    ),
  );

describe('@grpc/grpc-js-xds as a client of SotwServer', () => {
  let xds: SotwServer;
  let echoServer: Server;
  let channel: Client;
  const acks: Array<SotwServerEvents['ack']> = [];
  const nacks: Array<SotwServerEvents['nack']> = [];

  beforeAll(async () => {
    register();
    echoServer = new Server();
    echoServer.addService(
      {
        Echo: {
          path: '/test.Echo/Echo',
          requestStream: false,
          responseStream: false,
          requestSerialize: (b: Buffer) => b,
          requestDeserialize: (b: Buffer) => b,
          responseSerialize: (b: Buffer) => b,
          responseDeserialize: (b: Buffer) => b,
        },
      },
      {
        Echo: (call: { request: Buffer }, cb: (e: null, r: Buffer) => void) =>
          cb(null, Buffer.from(`echo:${call.request.toString()}`)),
      },
    );
    const requestedPort = await freePort();
    const echoPort = await new Promise<number>((resolve, reject) =>
      echoServer.bindAsync(`127.0.0.1:${requestedPort}`, ServerCredentials.createInsecure(), (e, bound) =>
        e ? reject(e) : resolve(bound),
      ),
    );

    xds = await startServer();
    xds.on('ack', (e) => acks.push(e));
    xds.on('nack', (e) => nacks.push(e));
    const hcm = {
      rds: { configSource: ads, routeConfigName: 'route-echo' },
      httpFilters: [{ name: 'router', typedConfig: toAny(routerCodec, {}) }],
    };
    xds.setResources(listenerCodec.typeUrl, [
      named(listenerCodec, 'echo.test', { apiListener: { apiListener: toAny(hcmCodec, hcm) } }),
      named(listenerCodec, 'other.test', { apiListener: { apiListener: toAny(hcmCodec, hcm) } }),
    ]);
    xds.setResources(routeCodec.typeUrl, [
      named(routeCodec, 'route-echo', {
        virtualHosts: [
          {
            name: 'vh',
            domains: ['*'],
            routes: [{ match: { prefix: '' }, route: { cluster: 'cluster-echo' } }],
          },
        ],
      }),
    ]);
    // first a cluster grpc-js-xds must reject: EDS without eds_cluster_config
    xds.setResources(clusterCodec.typeUrl, [cluster(false)]);
    xds.setResources(endpointCodec.typeUrl, [
      named(endpointCodec, 'eds-echo', {
        clusterName: 'eds-echo',
        endpoints: [
          {
            locality: { region: 'r', zone: 'z' },
            loadBalancingWeight: { value: 1 },
            lbEndpoints: [
              { endpoint: { address: { socketAddress: { address: '127.0.0.1', portValue: echoPort } } } },
            ],
          },
        ],
      }),
    ]);
    const bootstrap = {
      xds_servers: [
        {
          server_uri: `127.0.0.1:${xds.port}`,
          channel_creds: [{ type: 'insecure' }],
          server_features: ['xds_v3'],
        },
      ],
      node: { id: 'grpc-js-xds-node', locality: {} },
    };
    // a per-channel bootstrap, so no process-wide GRPC_XDS_BOOTSTRAP_CONFIG is needed
    channel = new Client('xds:///echo.test', credentials.createInsecure(), {
      'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': JSON.stringify(bootstrap),
    });
  });
  afterAll(async () => {
    channel.close();
    await xds.close();
    echoServer.forceShutdown();
  });

  it('NACKs a cluster it cannot use; we record it and the call fails UNAVAILABLE', async () => {
    await expect(echo(channel, 'hi')).rejects.toMatchObject({ code: GrpcStatus.UNAVAILABLE });
    expect(nacks).toMatchObject([
      {
        nodeId: 'grpc-js-xds-node',
        typeUrl: clusterCodec.typeUrl,
        message: expect.stringContaining('eds_cluster_config is unset') as string,
      },
    ]);
  });

  it('resolves xds:///echo.test through named LDS, RDS, CDS and EDS subscriptions and completes a call', async () => {
    const cdsVersion = xds.setResources(clusterCodec.typeUrl, [cluster(true)]);
    await waitUntil(() => acks.some((a) => a.typeUrl === clusterCodec.typeUrl && a.version === cdsVersion));
    expect(await echo(channel, 'hi')).toBe('echo:hi');

    const [client] = xds.clients();
    expect(client?.nodeId).toBe('grpc-js-xds-node');
    expect(client?.types.map((t) => [t.typeUrl, t.subscription, t.ackedVersion === t.sentVersion])).toEqual([
      [listenerCodec.typeUrl, ['echo.test'], true],
      [routeCodec.typeUrl, ['route-echo'], true],
      [clusterCodec.typeUrl, ['cluster-echo'], true],
      [endpointCodec.typeUrl, ['eds-echo'], true],
    ]);
    expect(client?.types[2]?.lastNack?.message).toContain('eds_cluster_config is unset');
  });
});
