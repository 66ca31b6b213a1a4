// `npm run --workspace @portcullis/bench operator-sotw-cost`: what a state-of-the-world push of 10,000
// RateLimitConfigs costs each side when one resource changed, in process (no network): the server
// building the response, the client reading it, and the client's work before (decode and validate every
// resource, build every domain) and after (reuse what did not change). The figures behind the choice not
// to build Delta xDS (operator/docs/benchmark.md). Prints figures; asserts nothing.
import { performance } from 'node:perf_hooks';
import { parseRateLimitConfig, type RateLimitConfig } from '@portcullis/config';
import { PROTO_FILES, createMessageCodec } from '@portcullis/protos';
import { loadAdsStreamMethod } from '@portcullis/xds';
import { encodeDiscoveryResponse, encodeResourceField } from '@portcullis/xds';
import { buildRuleSet, Stats } from '@portcullis/ratelimit';
import { describeMachine, today } from '../common/machine.js';

const TYPE = 'type.googleapis.com/ratelimit.config.ratelimit.v3.RateLimitConfig';
const COUNT = 10_000;
const REPEATS = 5;
const codec = createMessageCodec(
  PROTO_FILES.rateLimitConfig,
  'ratelimit.config.ratelimit.v3.RateLimitConfig',
);
const method = loadAdsStreamMethod();

interface Message {
  name: string;
  domain: string;
  descriptors: Array<{ key: string; rateLimit: { unit: string; requestsPerUnit: number } }>;
}

const message = (i: number, rpu: number): Message => ({
  name: `default/bench-${i}`,
  domain: `bench-${i}`,
  descriptors: [{ key: 'client', rateLimit: { unit: 'SECOND', requestsPerUnit: rpu } }],
});

function validate(value: Uint8Array): RateLimitConfig {
  const m = codec.decode(value) as unknown as Message;
  return parseRateLimitConfig(m.name, {
    domain: m.domain,
    descriptors: m.descriptors.map((d) => ({
      key: d.key,
      rate_limit: { unit: 'second', requests_per_unit: d.rateLimit.requestsPerUnit },
    })),
  });
}

/** The best of `REPEATS` runs, in ms. */
function best(run: () => unknown): number {
  let fastest = Number.POSITIVE_INFINITY;
  for (let k = 0; k < REPEATS; k++) {
    const start = performance.now();
    run();
    fastest = Math.min(fastest, performance.now() - start);
  }
  return fastest;
}

const values = Array.from({ length: COUNT }, (_, i) => codec.encode({ ...message(i, 100 + i) }));
const fields = values.map((v) => encodeResourceField(TYPE, v));
const response = { versionInfo: 'v', typeUrl: TYPE, nonce: '1' };
const bytes = encodeDiscoveryResponse({ ...response, resourceFields: fields });
const received = method.responseDeserialize(bytes).resources ?? [];
const configs = received.map((r) => validate(r.value));
const stats = new Stats();
const previous = buildRuleSet(configs, { mergeDomains: false, stats });
const edited = [...configs];
edited[COUNT / 2] = validate(codec.encode({ ...message(COUNT / 2, 1) }));

const rows: Array<[string, number]> = [
  [
    'server: response from the encoded fields (after)',
    best(() => encodeDiscoveryResponse({ ...response, resourceFields: fields })),
  ],
  [
    'server: response encoded whole (before)',
    best(() =>
      method.responseSerialize({
        ...response,
        resources: values.map((value) => ({ type_url: TYPE, value })),
      }),
    ),
  ],
  ['client: read the response (gRPC deserializer)', best(() => method.responseDeserialize(bytes))],
  [
    'client: key every resource by its bytes (after)',
    best(() =>
      received.map((r) =>
        Buffer.from(r.value.buffer, r.value.byteOffset, r.value.byteLength).toString('latin1'),
      ),
    ),
  ],
  ['client: decode and validate every resource (before)', best(() => received.map((r) => validate(r.value)))],
  ['client: build every domain (before)', best(() => buildRuleSet(configs, { mergeDomains: false, stats }))],
  [
    'client: build the changed domain, keep the others (after)',
    best(() => buildRuleSet(edited, { mergeDomains: false, stats, previous })),
  ],
];
process.stdout.write(
  `${today()}, ${describeMachine()}; ${COUNT} resources, one response ${bytes.length} bytes\n`,
);
for (const [label, ms] of rows) process.stdout.write(`${label.padEnd(60)} ${ms.toFixed(1).padStart(8)} ms\n`);
