import { describe, expect, it } from 'vitest';
import { loadAdsStreamMethod } from './ads-service.js';
import { encodeDiscoveryResponse, encodeResourceField } from './response-encoding.js';
import type { DiscoveryResponseMessage } from './types.js';

const T = 'type.googleapis.com/test.Thing';
const method = loadAdsStreamMethod();

describe('encodeDiscoveryResponse', () => {
  it('is what the protobuf encoder writes for the same response', () => {
    const values = [Uint8Array.from([1, 2, 3]), new Uint8Array(300).fill(7), new Uint8Array(0)];
    const message: DiscoveryResponseMessage = {
      versionInfo: 'v1',
      typeUrl: T,
      nonce: '42',
      resources: values.map((value) => ({ type_url: T, value })),
    };
    const ours = encodeDiscoveryResponse({
      versionInfo: 'v1',
      typeUrl: T,
      nonce: '42',
      resourceFields: values.map((v) => encodeResourceField(T, v)),
    });
    expect(ours).toEqual(method.responseSerialize(message));
    const decoded = method.responseDeserialize(ours);
    expect(decoded).toMatchObject({ versionInfo: 'v1', typeUrl: T, nonce: '42' });
    expect(decoded.resources?.map((r) => Buffer.from(r.value))).toEqual(values.map((v) => Buffer.from(v)));
  });

  it('leaves empty strings out, as proto3 does', () => {
    const ours = encodeDiscoveryResponse({ versionInfo: '', typeUrl: T, nonce: '', resourceFields: [] });
    expect(ours).toEqual(method.responseSerialize({ typeUrl: T }));
  });
});
