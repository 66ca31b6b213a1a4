import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SHIPPED_PROTO_DIRS } from '@portcullis/protos';
import protobuf from 'protobufjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startHarness, type Harness } from '../services/ratelimit/test/harness.js';

// examples/envoy/envoy.yaml against Envoy's own .proto files (every key must be a field of its message, every
// Any a known type, every enum value a name of its enum), and its rate-limit actions against a real
// rate-limit service running the `example` RateLimitConfig.

const repo = join(import.meta.dirname, '..');
type Json = Record<string, unknown>;

/** Well-known types whose proto3 JSON form is not their fields (`"0.25s"`, a bare number, any object). */
const JSON_SCALARS = new Set([
  '.google.protobuf.Duration',
  '.google.protobuf.Timestamp',
  '.google.protobuf.Struct',
  '.google.protobuf.Value',
  '.google.protobuf.BoolValue',
  '.google.protobuf.UInt32Value',
  '.google.protobuf.UInt64Value',
  '.google.protobuf.Int32Value',
  '.google.protobuf.Int64Value',
  '.google.protobuf.DoubleValue',
  '.google.protobuf.StringValue',
]);

function loadEnvoyRoot(): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) =>
    SHIPPED_PROTO_DIRS.map((d) => join(d, target)).find((p) => existsSync(p)) ?? target;
  root.loadSync(
    [
      'envoy/config/bootstrap/v3/bootstrap.proto',
      'envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.proto',
      'envoy/extensions/filters/http/ratelimit/v3/rate_limit.proto',
      'envoy/extensions/filters/http/router/v3/router.proto',
      'envoy/extensions/upstreams/http/v3/http_protocol_options.proto',
    ],
    { keepCase: true },
  );
  root.resolveAll();
  return root;
}

/** Every problem of `value` read as the proto3 JSON (or YAML) form of `type`, with its path. */
function check(root: protobuf.Root, type: protobuf.Type, value: unknown, path: string): string[] {
  if (JSON_SCALARS.has(type.fullName)) return [];
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return [`${path}: expected an object`];
  const obj = value as Json;
  if (type.fullName === '.google.protobuf.Any') {
    const url = obj['@type'];
    if (typeof url !== 'string') return [`${path}: Any without @type`];
    const inner = root.lookupTypeOrEnum(url.replace(/^type\.googleapis\.com\//, ''));
    if (!(inner instanceof protobuf.Type)) return [`${path}: unknown type ${url}`];
    const { ['@type']: _, ...rest } = obj;
    return check(root, inner, rest, `${path}<${inner.name}>`);
  }
  return Object.entries(obj).flatMap(([key, v]) => {
    const field = type.fields[key] ?? Object.values(type.fields).find((f) => f.name === key);
    if (!field) return [`${path}.${key}: no such field in ${type.fullName}`];
    const values: unknown[] = field.repeated
      ? Array.isArray(v)
        ? v
        : [undefined]
      : field.map
        ? Object.values(v as Json)
        : [v];
    if (field.repeated && !Array.isArray(v)) return [`${path}.${key}: expected a list`];
    return values.flatMap((item, i) => {
      const at = field.repeated ? `${path}.${key}[${i}]` : `${path}.${key}`;
      const t = field.resolvedType;
      if (t instanceof protobuf.Type) return check(root, t, item, at);
      if (t instanceof protobuf.Enum) {
        return typeof item === 'string' && item in t.values
          ? []
          : [`${at}: ${String(item)} is not a ${t.name}`];
      }
      return [];
    });
  });
}

describe('examples/envoy/envoy.yaml', () => {
  let config: Json;
  beforeAll(async () => {
    config = parse(await readFile(join(repo, 'examples/envoy/envoy.yaml'), 'utf8')) as Json;
  });

  it("uses only fields, types and enum values of Envoy's v3 protos", () => {
    const root = loadEnvoyRoot();
    expect(check(root, root.lookupType('envoy.config.bootstrap.v3.Bootstrap'), config, 'bootstrap')).toEqual(
      [],
    );
    // the checker can fail: a misspelt key and an unknown enum value are reported
    const broken = structuredClone(config);
    (broken as { admin: Json }).admin.adress = {};
    expect(check(root, root.lookupType('envoy.config.bootstrap.v3.Bootstrap'), broken, 'b')).toEqual([
      'b.admin.adress: no such field in .envoy.config.bootstrap.v3.Admin',
    ]);
  });

  describe('its rate-limit actions, asked of a rate-limit service with the example rules', () => {
    let ratelimit: Harness;
    beforeAll(async () => {
      const resource = parse(
        await readFile(join(repo, 'examples/resources/ratelimit-example.yaml'), 'utf8'),
      ) as {
        spec: Json;
      };
      ratelimit = await startHarness({ 'example.yaml': JSON.stringify(resource.spec) });
    });
    afterAll(() => ratelimit.close());

    interface Action {
      remote_address?: Json;
      request_headers?: { header_name: string; descriptor_key: string };
      header_value_match?: { descriptor_key: string; descriptor_value: string };
    }

    /** The descriptors Envoy makes for a request: one per rate_limits entry whose every action applies. */
    function descriptorsFor(request: { address: string; path: string; headers: Record<string, string> }) {
      const hcm = (
        config.static_resources as {
          listeners: Array<{ filter_chains: Array<{ filters: Array<{ typed_config: Json }> }> }>;
        }
      ).listeners[0]!.filter_chains[0]!.filters[0]!.typed_config;
      const host = (
        hcm.route_config as { virtual_hosts: Array<{ rate_limits: Array<{ actions: Action[] }> }> }
      ).virtual_hosts[0]!;
      return host.rate_limits.flatMap(({ actions }) => {
        const entries = actions.map((a) => {
          if (a.remote_address) return { key: 'remote_address', value: request.address };
          if (a.request_headers) {
            const v = request.headers[a.request_headers.header_name];
            return v === undefined ? undefined : { key: a.request_headers.descriptor_key, value: v };
          }
          if (a.header_value_match) {
            return request.path.startsWith('/login')
              ? { key: a.header_value_match.descriptor_key, value: a.header_value_match.descriptor_value }
              : undefined;
          }
          throw new Error(`an action this test does not model: ${JSON.stringify(a)}`);
        });
        return entries.every((e) => e !== undefined) ? [{ entries }] : [];
      });
    }

    const ask = async (descriptors: unknown) => {
      const filter = JSON.stringify(config).match(/"domain":"([^"]+)"/)?.[1];
      return (await ratelimit.json({ domain: filter, descriptors })).body as {
        overallCode: string;
        statuses: Array<{ currentLimit?: { requestsPerUnit: number } }>;
      };
    };

    it('limits every client address to 10 a minute', async () => {
      const d = descriptorsFor({ address: '10.1.2.3', path: '/', headers: {} });
      expect(d).toEqual([{ entries: [{ key: 'remote_address', value: '10.1.2.3' }] }]);
      expect((await ask(d)).statuses[0]?.currentLimit?.requestsPerUnit).toBe(10);
    });

    it('limits logins per user (x-user) and lets a gold plan replace that limit', async () => {
      const login = descriptorsFor({ address: '10.1.2.4', path: '/login', headers: { 'x-user': 'alice' } });
      expect(login.map((x) => x.entries.map((e) => e.key))).toEqual([['remote_address'], ['path', 'user']]);
      expect((await ask(login)).statuses.map((s) => s.currentLimit?.requestsPerUnit)).toEqual([10, 5]);
      const gold = descriptorsFor({
        address: '10.1.2.5',
        path: '/login',
        headers: { 'x-user': 'bob', 'x-plan': 'gold' },
      });
      const statuses = (await ask(gold)).statuses.map((s) => s.currentLimit?.requestsPerUnit);
      expect(statuses).toEqual([10, undefined, 10_000]);
    });
  });
});
