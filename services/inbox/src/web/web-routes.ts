import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpApp, Logger } from '@portcullis/kit';

/**
 * The inspector's policy: its own scripts, styles and API only. Nothing inline runs, so a captured body
 * that reaches the page as markup by some bug still cannot execute.
 */
export const INSPECTOR_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'content-security-policy': INSPECTOR_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

const TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

interface StaticFile {
  type: string;
  etag: string;
  /** By content coding: `identity`, and `br`/`gzip` when the build wrote them. */
  bodies: Map<string, Buffer>;
}

/**
 * The web inspector (built by `npm run build:web` into `webDir`): the page at `/`, `/inspect/<id>` and `/admin`,
 * revalidated on every load, and its content-hashed assets under `/assets/`, cached for a year. Files are
 * read once at start; precompressed `.br`/`.gz` siblings are served to clients that accept them.
 */
export function registerWebRoutes(app: HttpApp, o: { webDir: string; log: Logger }): void {
  const page = loadFile(join(o.webDir, 'index.html'));
  const assets = loadAssets(join(o.webDir, 'assets'));
  if (!page) {
    o.log.warn({ webDir: o.webDir }, 'the web inspector is not built (npm run build:web): / answers 503');
  }
  const servePage = (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    if (!page) {
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send('The web inspector is not built: run `npm run build:web` and restart the inbox.\n');
    }
    return sendFile(request, reply, { file: page, cache: 'no-cache' });
  };
  app.get('/', servePage);
  app.get('/inspect', servePage);
  app.get('/inspect/:id', servePage);
  app.get('/admin', servePage);
  app.get<{ Params: { file: string } }>('/assets/:file', (request, reply) => {
    const file = assets.get(request.params.file);
    if (!file) return reply.code(404).type('text/plain; charset=utf-8').send('not found\n');
    return sendFile(request, reply, { file, cache: 'public, max-age=31536000, immutable' });
  });
}

function sendFile(
  request: FastifyRequest,
  reply: FastifyReply,
  { file: f, cache }: { file: StaticFile; cache: string },
): FastifyReply {
  void reply.headers({ ...SECURITY_HEADERS, 'cache-control': cache, etag: f.etag, vary: 'accept-encoding' });
  if (request.headers['if-none-match'] === f.etag) return reply.code(304).send();
  const coding = pickCoding(request.headers['accept-encoding'], f.bodies);
  if (coding !== 'identity') void reply.header('content-encoding', coding);
  return reply.type(f.type).send(f.bodies.get(coding));
}

/** `br` before `gzip` before the plain bytes, among what the client accepts and the build wrote. */
function pickCoding(accept: string | undefined, bodies: Map<string, Buffer>): string {
  const accepted = new Set(
    (accept ?? '')
      .split(',')
      .map((part) => part.trim().split(';'))
      .filter(([, q]) => q?.trim() !== 'q=0')
      .map(([name]) => name?.trim().toLowerCase()),
  );
  for (const coding of ['br', 'gzip']) if (accepted.has(coding) && bodies.has(coding)) return coding;
  return 'identity';
}

function loadFile(path: string): StaticFile | undefined {
  if (!existsSync(path)) return undefined;
  const identity = readFileSync(path);
  const bodies = new Map([['identity', identity]]);
  for (const [coding, suffix] of [
    ['br', '.br'],
    ['gzip', '.gz'],
  ] as const) {
    if (existsSync(path + suffix)) bodies.set(coding, readFileSync(path + suffix));
  }
  const etag = `"${createHash('sha256').update(identity).digest('base64url').slice(0, 22)}"`;
  return { type: TYPES[extname(path)] ?? 'application/octet-stream', etag, bodies };
}

function loadAssets(dir: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  if (!existsSync(dir)) return files;
  for (const name of readdirSync(dir)) {
    if (name.endsWith('.br') || name.endsWith('.gz') || name.endsWith('.map')) continue;
    const file = loadFile(join(dir, name));
    if (file) files.set(name, file);
  }
  return files;
}
