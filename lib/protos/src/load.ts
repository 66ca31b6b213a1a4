import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPackageDefinition, type GrpcObject } from '@grpc/grpc-js';
import { loadSync, type Options, type PackageDefinition } from '@grpc/proto-loader';

const require = createRequire(import.meta.url);
const xdsRoot = dirname(require.resolve('@grpc/grpc-js-xds/package.json'));

const here = dirname(fileURLToPath(import.meta.url));
// an npm package (hack/release/build-npm-packages.ts) carries the files beside its bundle
const besideBundle = join(here, 'protos');

/**
 * Our own `.proto` files, first on the include path: where `PORTCULLIS_PROTO_DIR` says (the container images'
 * bundles have no repository around them), else `protos/` beside this module when a bundle carries them
 * there (the npm packages), else `protos/` at the repository root.
 */
export const PORTCULLIS_PROTO_DIR =
  process.env.PORTCULLIS_PROTO_DIR ??
  (existsSync(besideBundle) ? besideBundle : resolve(here, '../../../protos'));

/** The upstream `.proto` trees shipped inside `@grpc/grpc-js-xds`. */
export const SHIPPED_PROTO_DIRS: readonly string[] = [
  'deps/envoy-api',
  'deps/xds',
  'deps/googleapis',
  'deps/protoc-gen-validate',
].map((d) => join(xdsRoot, d));

export const PROTO_FILES = {
  rateLimitService: 'envoy/service/ratelimit/v3/rls.proto',
  rateLimitConfig: 'ratelimit/config/ratelimit/v3/rls_conf.proto',
  aggregatedDiscovery: 'envoy/service/discovery/v3/ads.proto',
  portcullisConfig: 'portcullis/config/v1/config.proto',
  grpcHealth: 'grpc/health/v1/health.proto',
} as const;

/**
 * How every Portcullis process maps messages to JavaScript: camelCase fields, enums as their names,
 * 64-bit integers as numbers (counters never reach 2^53; see `LoadOptions`), unset fields left undefined.
 */
export const LOADER_OPTIONS: Options = {
  keepCase: false,
  longs: Number,
  enums: String,
  defaults: false,
  oneofs: true,
};

/** `longs: String` (instead of `Number`) keeps 64-bit integers exact, for a server that checks their range. */
export interface LoadOptions {
  includeDirs?: readonly string[];
  longs?: typeof String | typeof Number;
}

export function loadProtoDefinition(files: readonly string[], o: LoadOptions = {}): PackageDefinition {
  const includeDirs = o.includeDirs ?? [PORTCULLIS_PROTO_DIR, ...SHIPPED_PROTO_DIRS];
  return loadSync([...files], {
    ...LOADER_OPTIONS,
    ...(o.longs ? { longs: o.longs } : {}),
    includeDirs: [...includeDirs],
  });
}

export function loadGrpcObject(files: readonly string[], o: LoadOptions = {}): GrpcObject {
  return loadPackageDefinition(loadProtoDefinition(files, o));
}
