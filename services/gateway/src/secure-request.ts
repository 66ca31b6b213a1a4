import type { TLSSocket } from 'node:tls';
import type { FastifyRequest } from 'fastify';

/**
 * Whether the client's request came over TLS: to this listener (`GATEWAY_TLS_CERT`), or to a proxy in front
 * that says so in `X-Forwarded-Proto`, which fastify's `request.protocol` believes from `GATEWAY_TRUST_PROXY`
 * peers only. A trusted proxy saying `http` does not make a TLS connection to the gateway plain.
 */
export function isSecureRequest(request: FastifyRequest): boolean {
  return (request.raw.socket as Partial<TLSSocket>).encrypted === true || request.protocol === 'https';
}
