import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

export type TestAlgorithm = 'RS256' | 'ES256' | 'EdDSA';

/** A key pair made in the test; `jwk` is its public half as a provider publishes it. */
export interface SigningKey {
  kid: string;
  alg: TestAlgorithm;
  privateKey: CryptoKey;
  jwk: JWK;
}

export async function createSigningKey(alg: TestAlgorithm, kid: string): Promise<SigningKey> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

/** A compact JWT signed with `key`, its header naming the key's `kid` and `alg` unless `header` says otherwise. */
export function signToken(
  key: SigningKey,
  claims: JWTPayload,
  header: Record<string, unknown> = {},
): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT', ...header })
    .sign(key.privateKey);
}

/**
 * An identity provider's key endpoint on node:http: each path serves the keys published at it, with
 * `cacheControl`, and counts the requests it gets. `mode` `error` answers 500, `reset` drops the connection.
 */
export interface JwksServer {
  url(path: string): string;
  publish(path: string, keys: readonly SigningKey[]): void;
  hits(path: string): number;
  mode: 'up' | 'error' | 'reset';
  cacheControl: string;
  close(): Promise<void>;
}

export async function startJwksServer(): Promise<JwksServer> {
  const published = new Map<string, JWK[]>();
  const hits = new Map<string, number>();
  const s: JwksServer = {
    mode: 'up',
    cacheControl: 'max-age=300',
    url: (path) => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    publish: (path, keys) =>
      published.set(
        path,
        keys.map((k) => k.jwk),
      ),
    hits: (path) => hits.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '';
    hits.set(path, s.hits(path) + 1);
    const keys = published.get(path);
    if (s.mode === 'reset') return void req.socket.destroy();
    if (s.mode === 'error' || !keys) return void res.writeHead(500).end('down');
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': s.cacheControl });
    res.end(JSON.stringify({ keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return s;
}
