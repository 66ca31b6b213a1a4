import { PROTO_FILES, createMessageCodec } from '@portcullis/protos';

const codec = createMessageCodec(PROTO_FILES.portcullisConfig, 'portcullis.config.v1.ApiRoute');

/**
 * The ApiRoute `demo/shop` that the OpenAPI tests document, encoded as xDS carries it: a rate-limited route
 * that needs a token, with a declared pattern and an optional part; a POST with a required field; then `more`.
 */
export function encodeShopApiRoute(more: readonly object[]): Uint8Array {
  return codec.encode({
    name: 'demo/shop',
    prefix: 'shop',
    createdAt: '2026-11-27T00:00:00Z',
    routes: [
      {
        name: 'item',
        method: 'GET',
        path: 'items/{id:\\d{1,9}}[/{field}]',
        auth: true,
        requiredParams: ['id|int', 'lang|word'],
        handler: 'Example.echo',
        rateLimit: { requestsPerUnit: 5, unit: 'minute', descriptors: [{ key: 'user', from: 'user' }] },
      },
      {
        name: 'create',
        method: 'POST',
        path: 'items',
        auth: false,
        requiredParams: ['title|text'],
        handler: 'Example.echo',
      },
      ...more,
    ],
  });
}
