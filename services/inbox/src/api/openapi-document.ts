import { CSRF_HEADER } from '../accounts/csrf.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './endpoint-routes.js';
import { FORWARDING_STATES, MAX_FILTER_TEXT_CHARS } from '../contract/capture-filter.js';
import { ENDPOINT_ID_PATTERN, SCHEMAS, STREAM_ID_PATTERN, type JsonSchema } from './openapi-schemas.js';

// The OpenAPI 3.1 document of the inbox's management API and receive URLs, served at `/api/openapi.json`.
// The routes have no fastify schemas, so this module is the description: openapi-document.test.ts fails
// when a registered route is missing here or a documented one is not registered, and
// test/openapi-contract.test.ts runs Schemathesis against a running inbox with it.

export const OPENAPI_PATH = '/api/openapi.json';

/** The methods an OpenAPI 3.1 path item can hold; the receive URLs take every other method too. */
export const OPENAPI_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type OpenApiMethod = (typeof OPENAPI_METHODS)[number];

export type Operation = Readonly<Record<string, unknown>> & {
  operationId: string;
  responses: Readonly<Record<string, unknown>>;
};
export type PathItem = Partial<Record<OpenApiMethod, Operation>> & { parameters?: readonly unknown[] };

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: Readonly<Record<string, unknown>>;
  paths: Readonly<Record<string, PathItem>>;
  components: Readonly<Record<string, unknown>>;
  [key: string]: unknown;
}

/**
 * Pages of the web inspector (HTML for a browser, not an API): the routes the document leaves out on
 * purpose, as fastify spells them.
 */
export const UNDOCUMENTED_ROUTES = [
  'GET /',
  'GET /inspect',
  'GET /inspect/:id',
  'GET /admin',
  'GET /assets/:file',
];

const schema = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });
const json = (s: JsonSchema): Record<string, unknown> => ({ 'application/json': { schema: s } });
const answer = (description: string, name: string, extra: Record<string, unknown> = {}) => ({
  description,
  content: json(schema(name)),
  ...extra,
});
const errors = (...statuses: number[]): Record<string, unknown> =>
  Object.fromEntries(statuses.map((s) => [String(s), { $ref: `#/components/responses/E${s}` }]));
const body = (name: string, required = true) => ({ required, content: json(schema(name)) });
const noStore = { 'Cache-Control': { schema: { const: 'no-store' } } };

const ERROR_RESPONSES: Record<number, string> = {
  400: 'A parameter or JSON field that cannot be used (`INVALID_ARGUMENT`), a body that is not JSON (`BAD_REQUEST`) or nested too deep (`BODY_TOO_DEEP`).',
  401: 'No credentials, or credentials that open nothing (`UNAUTHENTICATED`); the same for an unknown id.',
  403: `A cookie write or sign-in without \`X-Inbox-CSRF\`, or from another site (\`CSRF_CHECK_FAILED\`); a share token on anything but reading (\`SHARE_READ_ONLY\`).`,
  404: 'No such endpoint (to the admin, or a signed-in account), request or share (`NOT_FOUND`); the admin API while INBOX_ADMIN_TOKEN is empty (`ADMIN_DISABLED`).',
  409: 'A managed endpoint (`ENDPOINT_MANAGED`), a user name taken (`USERNAME_TAKEN`), an endpoint with as many share links as it may have (`SHARE_LIMIT_REACHED`), or a dead letter whose capture is being forwarded (`CAPTURE_BEING_FORWARDED`).',
  413: 'A body above the limit (`BODY_TOO_LARGE`); the connection is closed.',
  415: 'A body that is not `application/json` (`UNSUPPORTED_MEDIA_TYPE`).',
  422: 'A replay target the egress policy refuses (`EGRESS_REFUSED`), or a capture that cannot be sent: a nested path with a `..` segment, a header node:http cannot write (`CAPTURE_UNSENDABLE`).',
  429: 'Over a rate limit (`RATE_LIMITED`), or as many live streams open from this address as it may have (`TOO_MANY_STREAMS`).',
  502: 'A replay target that did not answer (`TARGET_UNREACHABLE`).',
  503: 'Redis or the ratelimit service could not be asked (`UNAVAILABLE`, `ACCOUNTS_BACKEND_UNAVAILABLE`, `RATE_LIMIT_UNAVAILABLE`), or every password check slot is taken (`PASSWORD_CHECKS_BUSY`, with `Retry-After`), or a signature secret with no key to seal it (`SECRETS_KEY_MISSING`), or as many live streams open in the process as it may hold (`STREAMS_FULL`); at `/readyz`, not ready (`NOT_READY`, naming the components that are not).',
  507: 'The memory store (no Redis) is full (`STORE_FULL`); nothing was stored.',
};

function errorResponse(status: number): Record<string, unknown> {
  const headers: Record<string, unknown> = {};
  if (status === 401) {
    headers['WWW-Authenticate'] = {
      required: true,
      schema: { type: 'string', pattern: '^Bearer realm="inbox"' },
    };
  }
  if (status === 429) headers['Retry-After'] = { schema: { type: 'string', pattern: '^[0-9]+$' } };
  return { description: ERROR_RESPONSES[status], headers, content: json(schema('Error')) };
}

const idParam = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'The endpoint id.',
  schema: { type: 'string', pattern: ENDPOINT_ID_PATTERN },
};
const requestIdParam = {
  name: 'requestId',
  in: 'path',
  required: true,
  description: 'A request id: the Redis Stream id `<ms>-<seq>`.',
  schema: { type: 'string', pattern: STREAM_ID_PATTERN },
};

/** `limit` and `before`, the cursor of every list read newest first. */
const PAGE_PARAMETERS = [
  {
    name: 'limit',
    in: 'query',
    schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE },
  },
  {
    name: 'before',
    in: 'query',
    description: "The previous page's `nextBefore`.",
    schema: { type: 'string', pattern: STREAM_ID_PATTERN },
  },
];

// who may call: any one entry of the list opens the operation; a share token reads, nothing more
const OWNER_READ = [{ bearerToken: [] }, { sessionCookie: [] }];
const TOKEN_OR_SESSION = [...OWNER_READ, { shareToken: [] }];
const TOKEN_OR_SESSION_WRITE = [{ bearerToken: [] }, { sessionCookie: [], csrfHeader: [] }];
const shareIdParam = {
  name: 'shareId',
  in: 'path',
  required: true,
  description: 'A share link id, as `POST …/shares` answered it.',
  schema: { type: 'string', pattern: ENDPOINT_ID_PATTERN },
};

/** The filter of `contract/capture-filter.ts`, on the list and on the exports; any of them makes a list a search. */
const text = { type: 'string', maxLength: MAX_FILTER_TEXT_CHARS };
const FILTER_PARAMETERS = [
  ['method', 'Methods, comma-separated, any case: `POST,PUT`.', text],
  ['path', 'The whole nested path, `*` standing for any characters: `/orders/*`.', text],
  ['header', '`name` (present) or `name:value` (a value containing it, any case); repeatable.', text],
  ['query', 'Text the raw query string contains, any case.', text],
  ['q', 'Text the body contains, read as UTF-8, any case (compressed bodies are not decompressed).', text],
  ['from', 'From this time, inclusive: ISO 8601 or milliseconds since the epoch.', text],
  ['to', 'Up to this time, inclusive.', text],
  [
    'forwarding',
    '`none`: never tried; else the latest attempt to some target had this outcome.',
    {
      enum: [...FORWARDING_STATES],
    },
  ],
].map(([name, description, s]) => ({ name, in: 'query', description, schema: s }));
const exportAnswer = (mediaType: string, description: string) => ({
  description,
  headers: {
    'Content-Disposition': { required: true, schema: { type: 'string', pattern: '^attachment;' } },
  },
  content: { [mediaType]: { schema: { type: 'string' } } },
});
const PUBLIC: unknown[] = [];

/** The receive URL's operations: every OpenAPI method, all alike. */
function captureItem(nested: boolean): PathItem {
  const item: PathItem = {
    parameters: [
      {
        name: 'endpointId',
        in: 'path',
        required: true,
        schema: { type: 'string', pattern: ENDPOINT_ID_PATTERN },
      },
      ...(nested
        ? [
            {
              name: 'nestedPath',
              in: 'path',
              required: true,
              description: 'Any path below the receive URL, slashes included; stored as sent.',
              schema: { type: 'string', minLength: 1 },
            },
          ]
        : []),
    ],
  };
  for (const method of OPENAPI_METHODS) {
    item[method] = {
      operationId: `capture${nested ? 'Nested' : ''}${method[0]?.toUpperCase() ?? ''}${method.slice(1)}`,
      tags: ['receive'],
      summary: `Capture a ${method.toUpperCase()} request byte for byte`,
      description:
        'Any method, headers and body (any content type, up to INBOX_MAX_BODY_BYTES) are stored as sent. ' +
        'CORS: any origin, the request id exposed.',
      security: PUBLIC,
      ...(method === 'get' || method === 'head' || method === 'trace'
        ? {}
        : { requestBody: { required: false, content: { '*/*': { schema: {} } } } }),
      responses: {
        '200': answer(
          'Stored (unless the endpoint has a custom response: then its status, headers and body).',
          'Captured',
          {
            headers: {
              'X-Inbox-Request-Id': {
                required: true,
                schema: { type: 'string', pattern: STREAM_ID_PATTERN },
              },
              ...noStore,
            },
            ...(method === 'post' && !nested ? { links: CAPTURED_LINKS } : {}),
          },
        ),
        ...errors(400, 404, 413, 429, 503, 507),
        default: {
          description:
            "Stored, answered with the endpoint's custom response (`setEndpointResponse`): its status, headers and text body, with `X-Inbox-Request-Id`.",
          headers: {
            'X-Inbox-Request-Id': { required: true, schema: { type: 'string', pattern: STREAM_ID_PATTERN } },
          },
        },
      },
    };
  }
  return item;
}

const ENDPOINT_LINKS = {
  GetEndpoint: { operationId: 'getEndpoint', parameters: { id: '$response.body#/id' } },
  ListRequests: { operationId: 'listRequests', parameters: { id: '$response.body#/id' } },
  RenameEndpoint: { operationId: 'renameEndpoint', parameters: { id: '$response.body#/id' } },
  Capture: { operationId: 'capturePost', parameters: { endpointId: '$response.body#/id' } },
  SetSignature: { operationId: 'setSignature', parameters: { id: '$response.body#/id' } },
  DeleteEndpoint: { operationId: 'deleteEndpoint', parameters: { id: '$response.body#/id' } },
  CreateShare: { operationId: 'createShare', parameters: { id: '$response.body#/id' } },
  ListShares: { operationId: 'listShares', parameters: { id: '$response.body#/id' } },
};

const SHARE_LINKS = {
  RevokeShare: {
    operationId: 'revokeShare',
    parameters: { id: '$request.path.id', shareId: '$response.body#/id' },
  },
};

const CAPTURED_LINKS = {
  GetRequest: {
    operationId: 'getRequest',
    parameters: { id: '$request.path.endpointId', requestId: '$response.body#/requestId' },
  },
  GetRequestBody: {
    operationId: 'getRequestBody',
    parameters: { id: '$request.path.endpointId', requestId: '$response.body#/requestId' },
  },
};

const paths: Record<string, PathItem> = {
  '/api/endpoints': {
    post: {
      operationId: 'createEndpoint',
      tags: ['endpoints'],
      summary: 'Create an endpoint',
      description:
        'Signed in (and no `Authorization`): an account endpoint, no token. Otherwise anonymous, with its ' +
        'token, shown this once.',
      security: [{}, { sessionCookie: [], csrfHeader: [] }],
      requestBody: body('NewEndpoint', false),
      responses: {
        '201': answer('Created.', 'CreatedEndpoint', {
          headers: { Location: { required: true, schema: { type: 'string' } }, ...noStore },
          links: ENDPOINT_LINKS,
        }),
        ...errors(400, 403, 413, 415, 429, 503, 507),
      },
    },
    get: {
      operationId: 'listEndpoints',
      tags: ['endpoints'],
      summary: "The signed-in account's endpoints, most recently added first",
      security: [{ sessionCookie: [] }],
      responses: { '200': answer('The endpoints.', 'EndpointList'), ...errors(400, 401, 503) },
    },
  },
  '/api/endpoints/{id}': {
    parameters: [idParam],
    get: {
      operationId: 'getEndpoint',
      tags: ['endpoints'],
      summary: 'Read an endpoint',
      security: TOKEN_OR_SESSION,
      responses: { '200': answer('The endpoint.', 'Endpoint'), ...errors(400, 401, 404, 503) },
    },
    patch: {
      operationId: 'renameEndpoint',
      tags: ['endpoints'],
      summary: 'Rename an endpoint',
      security: TOKEN_OR_SESSION_WRITE,
      requestBody: body('Rename'),
      responses: {
        '200': answer('The endpoint, renamed.', 'Endpoint'),
        ...errors(400, 401, 403, 404, 409, 413, 415, 503),
      },
    },
    delete: {
      operationId: 'deleteEndpoint',
      tags: ['endpoints'],
      summary: 'Delete an endpoint and all its captures',
      security: TOKEN_OR_SESSION_WRITE,
      responses: { '204': { description: 'Deleted.' }, ...errors(400, 401, 403, 404, 409, 503) },
    },
  },
  '/api/endpoints/{id}/signature': {
    parameters: [idParam],
    put: {
      operationId: 'setSignature',
      tags: ['endpoints'],
      summary: "Set the endpoint's signature preset; each capture is then checked against it",
      description:
        'The secret is sealed (AES-256-GCM, `INBOX_SECRETS_KEY`) before it is stored and never shown again. ' +
        'Managed endpoints answer 409; an inbox on Redis without `INBOX_SECRETS_KEY` answers 503 ' +
        '`SECRETS_KEY_MISSING`.',
      security: TOKEN_OR_SESSION_WRITE,
      requestBody: body('SignatureSettings'),
      responses: {
        '200': answer('The preset, without its secret.', 'Signature'),
        ...errors(400, 401, 403, 404, 409, 413, 415, 503),
      },
    },
    delete: {
      operationId: 'removeSignature',
      tags: ['endpoints'],
      summary: "Remove the endpoint's signature preset (captures are then not checked)",
      security: TOKEN_OR_SESSION_WRITE,
      responses: {
        '204': { description: 'Removed, or there was none.' },
        ...errors(400, 401, 403, 404, 409, 503),
      },
    },
  },
  '/api/endpoints/{id}/response': {
    parameters: [idParam],
    put: {
      operationId: 'setEndpointResponse',
      tags: ['endpoints'],
      summary: "Set what the endpoint's receive URL answers (anonymous and account endpoints)",
      security: TOKEN_OR_SESSION_WRITE,
      requestBody: body('EndpointResponse'),
      responses: {
        '200': answer('The response as stored, defaults filled.', 'ResponseAnswer'),
        ...errors(400, 401, 403, 404, 409, 413, 415, 503),
      },
    },
    delete: {
      operationId: 'resetEndpointResponse',
      tags: ['endpoints'],
      summary: 'Answer `{"ok":true,…}` again',
      security: TOKEN_OR_SESSION_WRITE,
      responses: { '204': { description: 'Reset.' }, ...errors(400, 401, 403, 404, 409, 503) },
    },
  },
  '/api/endpoints/{id}/retention': {
    parameters: [idParam],
    put: {
      operationId: 'setEndpointRetention',
      tags: ['endpoints'],
      summary: "Set how many captures and how long the endpoint keeps, within the inbox's ceilings",
      security: TOKEN_OR_SESSION_WRITE,
      requestBody: body('SetRetention'),
      responses: {
        '200': answer('The retention now applied.', 'Retention'),
        ...errors(400, 401, 403, 404, 409, 413, 415, 503),
      },
    },
  },
  '/api/endpoints/{id}/claim': {
    parameters: [idParam],
    post: {
      operationId: 'claimEndpoint',
      tags: ['endpoints'],
      summary: 'Move an anonymous endpoint into the signed-in account; its token stops working',
      security: [{ bearerToken: [], sessionCookie: [], csrfHeader: [] }],
      responses: {
        '200': answer('The endpoint, now `kind: account`.', 'Endpoint'),
        ...errors(400, 401, 403, 404, 503),
      },
    },
  },
  '/api/endpoints/{id}/requests': {
    parameters: [idParam],
    get: {
      operationId: 'listRequests',
      tags: ['requests'],
      summary: 'Captured requests, newest first, a page at a time',
      security: TOKEN_OR_SESSION,
      parameters: [...PAGE_PARAMETERS, ...FILTER_PARAMETERS],
      responses: {
        '200': answer(
          'A page. With a filter, at most `INBOX_SEARCH_MAX_SCAN` captures are read for it: a short page with a `nextBefore` continues the search.',
          'RequestPage',
        ),
        ...errors(400, 401, 404, 503),
      },
    },
  },
  '/api/endpoints/{id}/requests.har': {
    parameters: [idParam],
    get: {
      operationId: 'exportHar',
      tags: ['requests'],
      summary: 'The captures (or those a filter matches) as HAR 1.2, newest first, streamed',
      security: TOKEN_OR_SESSION,
      parameters: FILTER_PARAMETERS,
      responses: { '200': exportAnswer('application/json', 'A HAR 1.2 log.'), ...errors(400, 401, 404, 503) },
    },
  },
  '/api/endpoints/{id}/requests.ndjson': {
    parameters: [idParam],
    get: {
      operationId: 'exportNdjson',
      tags: ['requests'],
      summary: 'The captures (or those a filter matches) as one JSON record a line, the body exact',
      security: TOKEN_OR_SESSION,
      parameters: FILTER_PARAMETERS,
      responses: {
        '200': exportAnswer('application/x-ndjson', 'One capture a line, newest first.'),
        ...errors(400, 401, 404, 503),
      },
    },
  },
  '/api/endpoints/{id}/requests/import': {
    parameters: [idParam],
    post: {
      operationId: 'importHar',
      tags: ['requests'],
      summary: "Store a HAR's requests as captures of this endpoint (`remoteAddress: import`)",
      security: TOKEN_OR_SESSION_WRITE,
      requestBody: body('Har'),
      responses: {
        '201': answer('What was stored, oldest first.', 'ImportResult'),
        ...errors(400, 401, 403, 404, 413, 415, 429, 503, 507),
      },
    },
  },
  '/api/endpoints/{id}/requests/{requestId}': {
    parameters: [idParam, requestIdParam],
    get: {
      operationId: 'getRequest',
      tags: ['requests'],
      summary: 'Everything kept of one captured request, with its forwarding history',
      security: TOKEN_OR_SESSION,
      responses: { '200': answer('The request.', 'CaptureDetail'), ...errors(400, 401, 404, 503) },
    },
  },
  '/api/endpoints/{id}/requests/{requestId}/body': {
    parameters: [idParam, requestIdParam],
    get: {
      operationId: 'getRequestBody',
      tags: ['requests'],
      summary: 'The exact body bytes, as an attachment',
      security: TOKEN_OR_SESSION,
      responses: {
        '200': {
          description: 'The body as received.',
          headers: {
            'Content-Disposition': { required: true, schema: { type: 'string', pattern: '^attachment;' } },
            'X-Body-Sha256': { required: true, schema: { type: 'string', pattern: '^[0-9a-f]{64}$' } },
          },
          content: {
            'application/octet-stream': {
              schema: { type: 'string', contentMediaType: 'application/octet-stream' },
            },
          },
        },
        ...errors(400, 401, 404, 503),
      },
    },
  },
  '/api/endpoints/{id}/requests/{requestId}/replay': {
    parameters: [idParam, requestIdParam],
    post: {
      operationId: 'replayRequest',
      tags: ['requests'],
      summary: 'Send the request once more, to a URL (under the egress policy)',
      security: TOKEN_OR_SESSION_WRITE,
      requestBody: body('ReplayTarget'),
      responses: {
        '200': answer("The target's answer.", 'ReplayResult'),
        ...errors(400, 401, 403, 404, 413, 415, 422, 429, 502, 503),
      },
    },
  },
  '/api/endpoints/{id}/dead-letters': {
    parameters: [idParam],
    get: {
      operationId: 'listDeadLetters',
      tags: ['forwarding'],
      summary: 'Captures given up on a forward target, newest first, a page at a time',
      security: OWNER_READ,
      parameters: PAGE_PARAMETERS,
      responses: { '200': answer('A page.', 'DeadLetterPage'), ...errors(400, 401, 404, 503) },
    },
  },
  '/api/endpoints/{id}/dead-letters/{dlqId}/redrive': {
    parameters: [
      idParam,
      {
        name: 'dlqId',
        in: 'path',
        required: true,
        description: 'A dead letter id, `<ms>-<seq>`.',
        schema: { type: 'string', pattern: STREAM_ID_PATTERN },
      },
    ],
    post: {
      operationId: 'redriveDeadLetter',
      tags: ['forwarding'],
      summary: 'Queue the capture again for the target it died on, with a fresh attempt count',
      security: TOKEN_OR_SESSION_WRITE,
      responses: {
        '200': answer('Queued again; the letter is removed.', 'Redriven'),
        ...errors(400, 401, 403, 404, 409, 503),
      },
    },
  },
  '/api/endpoints/{id}/dead-letters/redrive': {
    parameters: [idParam],
    post: {
      operationId: 'redriveDeadLetters',
      tags: ['forwarding'],
      summary: 'Redrive every dead letter of the endpoint, oldest first',
      security: TOKEN_OR_SESSION_WRITE,
      responses: {
        '200': answer('What became of each.', 'RedriveCounts'),
        ...errors(400, 401, 403, 404, 503),
      },
    },
  },
  '/api/endpoints/{id}/circuits': {
    parameters: [idParam],
    get: {
      operationId: 'listCircuits',
      tags: ['forwarding'],
      summary:
        'The forward targets whose circuit breaker is open, half-open or counting failures, per worker',
      security: OWNER_READ,
      responses: { '200': answer('The circuits.', 'Circuits'), ...errors(400, 401, 404, 503) },
    },
  },
  '/api/endpoints/{id}/stream': {
    parameters: [idParam],
    get: {
      operationId: 'streamRequests',
      tags: ['requests'],
      summary: 'Live captures as Server-Sent Events, resumable with Last-Event-ID',
      security: TOKEN_OR_SESSION,
      parameters: [
        {
          name: 'Last-Event-ID',
          in: 'header',
          description: 'Replay every stored capture after this request id first.',
          schema: { type: 'string', pattern: `^\\s*[0-9]{1,16}-[0-9]{1,16}\\s*$` },
        },
        {
          name: 'full',
          in: 'query',
          description: '`1` or `true`: events carry the full record, not the summary.',
          schema: { type: 'string' },
        },
      ],
      responses: {
        '200': {
          description:
            'A stream: `ready`, then `request` events (and `forwarding` events, without ids); `overflow`, `deleted` or `error` end it.',
          content: { 'text/event-stream': { schema: { type: 'string' } } },
        },
        ...errors(400, 401, 404, 429, 503),
      },
    },
  },
  '/api/endpoints/{id}/shares': {
    parameters: [idParam],
    post: {
      operationId: 'createShare',
      tags: ['sharing'],
      summary: 'Create a read-only share link; its token is shown this once',
      security: TOKEN_OR_SESSION_WRITE,
      responses: {
        '201': answer('Created.', 'CreatedShare', { headers: noStore, links: SHARE_LINKS }),
        ...errors(400, 401, 403, 404, 409, 503),
      },
    },
    get: {
      operationId: 'listShares',
      tags: ['sharing'],
      summary: "The endpoint's share links, oldest first, without their tokens",
      security: OWNER_READ,
      responses: { '200': answer('The share links.', 'ShareList'), ...errors(400, 401, 403, 404, 503) },
    },
  },
  '/api/endpoints/{id}/shares/{shareId}': {
    parameters: [idParam, shareIdParam],
    delete: {
      operationId: 'revokeShare',
      tags: ['sharing'],
      summary: 'Revoke a share link: its token stops working and the live streams it opened end',
      security: TOKEN_OR_SESSION_WRITE,
      responses: { '204': { description: 'Revoked.' }, ...errors(400, 401, 403, 404, 503) },
    },
  },
  '/api/admin/endpoints': {
    get: {
      operationId: 'listManagedEndpoints',
      tags: ['admin'],
      summary: 'The managed endpoints (InboxEndpoint resources), for the admin view',
      description: 'The admin token only. `404 ADMIN_DISABLED` while INBOX_ADMIN_TOKEN is empty.',
      security: [{ bearerToken: [] }],
      responses: {
        '200': answer('The managed endpoints.', 'ManagedEndpointList'),
        ...errors(400, 401, 404, 503),
      },
    },
  },
  '/api/accounts': {
    post: {
      operationId: 'signUp',
      tags: ['accounts'],
      summary: 'Create an account, and sign in',
      security: [{ csrfHeader: [] }],
      requestBody: body('NewAccount'),
      responses: {
        '201': answer('Signed up and in: the session cookie is set.', 'AccountAnswer', {
          headers: { 'Set-Cookie': { required: true, schema: { type: 'string' } } },
        }),
        ...errors(400, 403, 409, 413, 415, 429, 503),
      },
    },
  },
  '/api/session': {
    post: {
      operationId: 'signIn',
      tags: ['accounts'],
      summary: 'Sign in; the session the browser had ends',
      security: [{ csrfHeader: [] }],
      requestBody: body('Credentials'),
      responses: {
        '200': answer('Signed in: the session cookie is set.', 'AccountAnswer', {
          headers: { 'Set-Cookie': { required: true, schema: { type: 'string' } } },
        }),
        ...errors(400, 401, 403, 413, 415, 429, 503),
      },
    },
    get: {
      operationId: 'getSession',
      tags: ['accounts'],
      summary: 'Who is signed in',
      security: [{}, { sessionCookie: [] }],
      responses: { '200': answer('The account, or null.', 'Session'), ...errors(400, 503) },
    },
    delete: {
      operationId: 'signOut',
      tags: ['accounts'],
      summary: 'End the session and clear the cookie',
      security: [{}, { sessionCookie: [], csrfHeader: [] }],
      responses: {
        '204': {
          description: 'Signed out.',
          headers: { 'Set-Cookie': { required: true, schema: { type: 'string' } } },
        },
        ...errors(400, 403, 503),
      },
    },
  },
  '/api/hook/{endpointId}': captureItem(false),
  '/api/hook/{endpointId}/{nestedPath}': captureItem(true),
  [OPENAPI_PATH]: {
    get: {
      operationId: 'getOpenApiDocument',
      tags: ['meta'],
      summary: 'This document',
      security: PUBLIC,
      responses: { '200': { description: 'OpenAPI 3.1.', content: json({ type: 'object' }) } },
    },
  },
  '/healthz': {
    get: {
      operationId: 'getHealth',
      tags: ['meta'],
      summary: 'Liveness: the process answers',
      security: PUBLIC,
      responses: { '200': answer('Alive.', 'Health') },
    },
  },
  '/readyz': {
    get: {
      operationId: 'getReadiness',
      tags: ['meta'],
      summary:
        'Readiness: Redis connected, first InboxEndpoints applied (xDS mode), the local forwarder going round (memory store), not shutting down',
      security: PUBLIC,
      responses: {
        '200': answer('Ready for traffic.', 'Ready'),
        ...errors(503),
      },
    },
  },
  '/metrics': {
    get: {
      operationId: 'getMetrics',
      tags: ['meta'],
      summary: 'Prometheus metrics',
      security: PUBLIC,
      responses: {
        '200': {
          description: 'The text exposition format.',
          content: { 'text/plain': { schema: { type: 'string' } } },
        },
      },
    },
  },
};

/** The document, with the session cookie's name as configured (`INBOX_SESSION_COOKIE`). */
export function buildOpenApiDocument(o: { cookieName: string; version?: string }): OpenApiDocument {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Portcullis inbox',
      version: o.version ?? '0.1.0',
      description:
        'Receive URLs that capture any request byte for byte, and the JSON API that manages endpoints and ' +
        'reads what they captured. Every error is `{error, code}`. See services/inbox/README.md.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    tags: ['endpoints', 'requests', 'sharing', 'admin', 'accounts', 'receive', 'meta'].map((name) => ({
      name,
    })),
    paths,
    components: {
      schemas: SCHEMAS,
      responses: Object.fromEntries(
        Object.keys(ERROR_RESPONSES).map((s) => [`E${s}`, errorResponse(Number(s))]),
      ),
      securitySchemes: {
        bearerToken: {
          type: 'http',
          scheme: 'bearer',
          description: "The endpoint's token (anonymous endpoints), or INBOX_ADMIN_TOKEN (every endpoint).",
        },
        shareToken: {
          type: 'http',
          scheme: 'bearer',
          description:
            "A share link's token (POST /api/endpoints/{id}/shares): reads that endpoint's captures, nothing else (403 SHARE_READ_ONLY).",
        },
        sessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: o.cookieName,
          description: 'A session of the owning account (POST /api/session).',
        },
        csrfHeader: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Inbox-CSRF',
          description: `Any non-empty value; required on cookie writes and sign-in (header \`${CSRF_HEADER}\`).`,
        },
      },
    },
  };
}
