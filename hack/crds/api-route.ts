import {
  DESCRIPTOR_SOURCES,
  HTTP_METHODS,
  RATE_LIMIT_UNITS,
  UNNAMED_DESCRIPTOR_SOURCES,
} from '@portcullis/config';
import { bool, int, list, obj, rule, str, unitSpellings, type CrdSource } from './schema.js';


const dnsLabel = { maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' };

const route = obj(
  {
    name: str({
      ...dnsLabel,
      description: 'Unique in the resource; names the route in status and rate-limit descriptors.',
    }),
    method: str({ enum: [...HTTP_METHODS], description: '`*` answers any method; HEAD falls back to GET.' }),
    path: str({
      maxLength: 1024,
      description:
        'Relative to /<base>/<prefix>/: segments, `{name}`, `{name:regex}`, optional trailing `[...]`.',
    }),
    auth: bool({ default: true, description: 'false opens the route to anonymous callers.' }),
    requiredParams: list(str({ pattern: '^[A-Za-z_][A-Za-z0-9_]*(\\|[A-Za-z]+)?$' }), {
      maxItems: 32,
      description: '`name` or `name|sanitizer`, checked before the handler runs.',
    }),
    roles: list(str({ pattern: '^[A-Za-z0-9_.:-]{1,64}$' }), {
      maxItems: 32,
      description:
        'The caller needs one of these roles (a user\'s or an API key\'s application\'s); else 403 FORBIDDEN. Needs auth.',
    }),
    handler: str({
      pattern: '^[A-Za-z_$][A-Za-z0-9_$]*\\.[A-Za-z_$][A-Za-z0-9_$]*$',
      description: '`Class.method` of the gateway routes module.',
    }),
    backend: obj(
      {
        service: str(dnsLabel),
        namespace: str(dnsLabel),
        port: int({ minimum: 1, maximum: 65_535 }),
        path: str({ maxLength: 1024, description: 'Prefix put in front of the forwarded path.' }),
        timeoutSeconds: int({ minimum: 1, maximum: 300, default: 30 }),
      },
      { required: ['service', 'port'] },
    ),
    rateLimit: obj(
      {
        requestsPerUnit: int({ minimum: 0, maximum: 4_294_967_295 }),
        unit: str({ enum: unitSpellings(RATE_LIMIT_UNITS) }),
        shadowMode: bool(),
        descriptors: list(
          obj(
            {
              key: str({ minLength: 1 }),
              from: str({ enum: [...DESCRIPTOR_SOURCES], maxLength: 16 }),
              name: str({
                maxLength: 256,
                description: 'Header, claim, path or query parameter name, for those sources.',
              }),
            },
            {
              required: ['key', 'from'],
              'x-kubernetes-validations': [
                rule(
                  `self.from in [${UNNAMED_DESCRIPTOR_SOURCES.map((s) => `'${s}'`).join(', ')}] || has(self.name)`,
                  'name is required for header, claim, pathParam and query sources',
                ),
              ],
            },
          ),
          { maxItems: 8 },
        ),
      },
      { required: ['requestsPerUnit', 'unit'] },
    ),
  },
  {
    required: ['name', 'method', 'path'],
    'x-kubernetes-validations': [
      rule('has(self.handler) != has(self.backend)', 'exactly one of handler or backend is required'),
    ],
  },
);

export const apiRoute: CrdSource = {
  kind: 'ApiRoute',
  plural: 'apiroutes',
  singular: 'apiroute',
  shortNames: ['ar'],
  description: 'REST routes served by the gateway under its base path, grouped under an optional prefix.',
  spec: obj(
    {
      prefix: str({
        maxLength: 253,
        pattern: '^[a-z0-9-]+(/[a-z0-9-]+)*$',
        description: 'First segments after the base path, e.g. `v1` or `v2/admin`.',
      }),
      routes: list(route, {
        minItems: 1,
        maxItems: 128,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
      }),
    },
    { required: ['routes'] },
  ),
  printerColumns: [{ name: 'Prefix', type: 'string', jsonPath: '.spec.prefix' }],
};
