import {
  HMAC_ALGORITHMS,
  HMAC_ENCODINGS,
  MAX_TOLERANCE_SECONDS,
  REFUSED_RESPONSE_HEADERS,
  RESPONSE_LIMITS as R,
  SIGNATURE_PROVIDERS,
} from '@portcullis/config';
import { bool, int, list, obj, rule, str, type CrdSource } from './schema.js';

export const inboxEndpoint: CrdSource = {
  kind: 'InboxEndpoint',
  plural: 'inboxendpoints',
  singular: 'inboxendpoint',
  shortNames: ['ibe'],
  description:
    'A webhook inbox endpoint with a stable id, its display name, forward targets, retention, response and signature check.',
  spec: obj(
    {
      endpointId: str({
        pattern: '^[A-Za-z0-9_-]{22,64}$',
        maxLength: 64,
        description: 'The id in /api/hook/<id>: URL-safe, at least 22 characters (128 bits). Cannot change.',
        'x-kubernetes-validations': [rule('self == oldSelf', 'endpointId is immutable')],
      }),
      displayName: str({ maxLength: 200 }),
      forward: list(
        obj(
          {
            url: str({ maxLength: 2048, pattern: '^https?://[^\\s]+$' }),
            pathMode: str({
              enum: ['append', 'exact'],
              default: 'append',
              description: 'append adds the nested path to url.',
            }),
            enabled: bool({ default: true }),
            timeoutSeconds: int({ minimum: 1, maximum: 300, default: 10 }),
            maxConcurrent: int({
              minimum: 1,
              maximum: 1024,
              default: 32,
              description: 'Deliveries to this target at once, per forwarding process.',
            }),
            retry: obj({
              maxAttempts: int({ minimum: 1, maximum: 50, default: 8 }),
              initialDelaySeconds: int({ minimum: 1, maximum: 3600, default: 30 }),
              maxDelaySeconds: int({ minimum: 1, maximum: 86_400, default: 3600 }),
            }),
          },
          { required: ['url'] },
        ),
        { maxItems: 5 },
      ),
      retention: obj({
        maxRequests: int({ minimum: 1, maximum: 1_000_000, default: 500 }),
        maxAgeHours: int({ minimum: 1, maximum: 8760, default: 168 }),
        maxBytes: int({ minimum: 1024, maximum: 10_737_418_240, default: 52_428_800 }),
      }),
      response: obj(
        {
          status: int({ minimum: R.minStatus, maximum: R.maxStatus, default: 200 }),
          headers: list(
            obj(
              {
                name: str({
                  maxLength: R.maxHeaderNameChars,
                  pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$",
                  'x-kubernetes-validations': [
                    rule(
                      `!(self.lowerAscii() in [${[...REFUSED_RESPONSE_HEADERS].map((h) => `'${h}'`).join(', ')}])`,
                      'this header cannot be set: the inbox sets it, or it is hop-by-hop',
                    ),
                  ],
                }),
                value: str({ maxLength: R.maxHeaderValueChars }),
              },
              { required: ['name'] },
            ),
            { maxItems: R.maxHeaders },
          ),
          body: str({
            maxLength: R.maxBodyBytes,
            description: 'Text; {{body.<field>[.<field>…]}} is replaced by that field of the request JSON body.',
          }),
          delayMs: int({ minimum: 0, maximum: R.maxDelayMs, default: 0 }),
        },
        { description: 'What the receive URL answers; absent: {"ok":true,...}.' },
      ),
      signature: obj(
        {
          provider: str({ enum: [...SIGNATURE_PROVIDERS] }),
          toleranceSeconds: int({
            minimum: 1,
            maximum: MAX_TOLERANCE_SECONDS,
            description: 'stripe, slack and standard-webhooks: how far a signed timestamp may be; 300 if unset.',
          }),
          header: str({ maxLength: 100, pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" }),
          algorithm: str({ enum: [...HMAC_ALGORITHMS], description: 'hmac: sha256 if unset.' }),
          encoding: str({ enum: [...HMAC_ENCODINGS], description: 'hmac: hex if unset.' }),
          prefix: str({ maxLength: 64, description: 'hmac: text before the digest, e.g. sha256=.' }),
          secretRef: obj(
            {
              name: str({ maxLength: 253, description: "A Secret in the resource's namespace." }),
              key: str({ maxLength: 253, pattern: '^[-._a-zA-Z0-9]+$' }),
            },
            { required: ['name', 'key'] },
          ),
        },
        {
          required: ['provider', 'secretRef'],
          description:
            'Checks each capture as the provider signs it; the secret is read from a Secret, never written here.',
          'x-kubernetes-validations': [
            rule("self.provider != 'hmac' || has(self.header)", 'header is required for provider hmac'),
            rule(
              "self.provider == 'hmac' || !(has(self.header) || has(self.algorithm) || has(self.encoding) || has(self.prefix))",
              'header, algorithm, encoding and prefix are for provider hmac only',
            ),
            rule(
              "!has(self.toleranceSeconds) || self.provider in ['stripe', 'slack', 'standard-webhooks']",
              'toleranceSeconds is for stripe, slack and standard-webhooks only',
            ),
          ],
        },
      ),
    },
    { required: ['endpointId'] },
  ),
  printerColumns: [
    { name: 'Endpoint', type: 'string', jsonPath: '.spec.endpointId' },
    { name: 'Display Name', type: 'string', jsonPath: '.spec.displayName' },
  ],
};
