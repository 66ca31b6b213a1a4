import type { FastifyReply } from 'fastify';
import { ConfigError, parseSignatureSettings } from '@portcullis/config';
import { type HttpApp, InvalidArgumentError, NotFoundError, withSpan } from '@portcullis/kit';
import type { InboxContext } from '../context.js';
import { EndpointManagedError, SecretsKeyMissingError } from '../errors.js';
import { toSignatureView } from '../contract/signature-json.js';
import type { Authorize } from '../accounts/access.js';

type Params = { Params: { id: string } };

/** A preset is a few short fields and a secret of at most 1024 characters. */
const BODY_LIMIT_BYTES = 16 * 1024;

/**
 * An endpoint's signature preset: `PUT` sets it (the secret sealed before it is stored, never shown again),
 * `DELETE` removes it. The endpoint's JSON shows it as `signature` (`secretSet: true`, never the secret).
 */
export function registerSignatureRoutes(app: HttpApp, ctx: InboxContext, authorize: Authorize): void {
  app.put<Params>('/api/endpoints/:id/signature', { bodyLimit: BODY_LIMIT_BYTES }, (request) =>
    withSpan('portcullis-inbox', 'inbox set signature', async () => {
      const endpoint = await authorize(request, request.params.id);
      if (endpoint.kind === 'managed') throw new EndpointManagedError(endpoint.resource);
      const { preset, secret } = readSignature(request.body);
      if (!ctx.secrets) throw new SecretsKeyMissingError();
      const stored = { preset, sealedSecret: ctx.secrets.seal(secret, endpoint.id) };
      if (!(await ctx.store.setSignature(endpoint.id, stored))) throw new NotFoundError('no such endpoint');
      ctx.log.info({ endpointId: endpoint.id, provider: preset.provider }, 'signature preset set');
      return toSignatureView(stored);
    }),
  );

  app.delete<Params>('/api/endpoints/:id/signature', (request, reply: FastifyReply) =>
    withSpan('portcullis-inbox', 'inbox remove signature', async () => {
      const endpoint = await authorize(request, request.params.id);
      if (endpoint.kind === 'managed') throw new EndpointManagedError(endpoint.resource);
      if (!(await ctx.store.setSignature(endpoint.id, undefined)))
        throw new NotFoundError('no such endpoint');
      return reply.code(204).send();
    }),
  );
}

/** JSON types, which lib/config's reader (made for YAML, where scalars may come as text) does not insist on. */
const FIELD_TYPES: Readonly<Record<string, 'string' | 'number'>> = {
  provider: 'string',
  secret: 'string',
  toleranceSeconds: 'number',
  header: 'string',
  algorithm: 'string',
  encoding: 'string',
  prefix: 'string',
};

/** Every problem of the body at once, each naming its field: `signature: provider: expected one of …`. */
function readSignature(body: unknown): ReturnType<typeof parseSignatureSettings> {
  const fields = typeof body === 'object' && body !== null ? Object.entries(body) : [];
  const mistyped = fields.flatMap(([key, value]) => {
    const type = FIELD_TYPES[key];
    return type === undefined || typeof value === type ? [] : [`signature: ${key}: expected a ${type}`];
  });
  try {
    const parsed = parseSignatureSettings('signature', body);
    if (mistyped.length === 0) return parsed;
  } catch (err: unknown) {
    if (!(err instanceof ConfigError)) throw err;
    throw new InvalidArgumentError([...mistyped, ...err.problems].join('; '), { cause: err });
  }
  throw new InvalidArgumentError(mistyped.join('; '));
}
