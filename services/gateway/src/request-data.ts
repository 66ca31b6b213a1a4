import type { IncomingMessage } from 'node:http';
import { Busboy } from '@fastify/busboy';
import { BodyTooLargeError, checkJsonDepth, readBody } from '@portcullis/kit';
import { BadJsonError, BadMultipartError } from './errors.js';
import type { RequestData } from './handlers/types.js';

/** 413 for a body over the limit; the rest is never read, so the connection closes after the answer. */
export function tooLarge(maxBytes: number): BodyTooLargeError {
  return new BodyTooLargeError(maxBytes);
}

/** The JSON, urlencoded or multipart body's data, within the body size and depth limits. */
export async function readData(
  req: IncomingMessage,
  limits: { maxBodyBytes: number; maxBodyDepth: number },
): Promise<Record<string, unknown>> {
  const body = await readBody(req, limits.maxBodyBytes, () => tooLarge(limits.maxBodyBytes));
  return parseBody(req.headers['content-type'], body, limits.maxBodyDepth);
}

/** Query parameters; a repeated name becomes a list. */
export function parseQuery(search: string): Record<string, unknown> {
  return fromPairs(new URLSearchParams(search));
}

/**
 * A JSON object or urlencoded form body, for any method; other types contribute nothing. A JSON body
 * nested deeper than `maxDepth` is a 400.
 */
export async function parseBody(
  contentType: string | undefined,
  body: Buffer,
  maxDepth: number,
): Promise<Record<string, unknown>> {
  if (body.length === 0) return {};
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === 'application/json' || type.endsWith('+json')) {
    const text = body.toString('utf8');
    checkJsonDepth(text, maxDepth);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err: unknown) {
      throw new BadJsonError(`body is not valid JSON: ${(err as Error).message}`);
    }
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  }
  if (type === 'application/x-www-form-urlencoded')
    return fromPairs(new URLSearchParams(body.toString('utf8')));
  if (type === 'multipart/form-data') return fromPairs(await multipartFields(contentType ?? '', body));
  return {};
}

/**
 * The text fields of a multipart body, in order. File parts are not data (the original module's PHP put
 * them in `$_FILES`, not `$_REQUEST`) and are skipped; an upstream route gets the body untouched.
 */
function multipartFields(contentType: string, body: Buffer): Promise<Array<[string, string]>> {
  const bad = (err: unknown): BadMultipartError =>
    new BadMultipartError(`body is not valid multipart/form-data: ${(err as Error).message}`);
  return new Promise((resolve, reject) => {
    const fields: Array<[string, string]> = [];
    let parser: ReturnType<typeof Busboy>;
    try {
      parser = Busboy({ headers: { 'content-type': contentType } });
    } catch (err: unknown) {
      reject(bad(err));
      return;
    }
    parser.on('field', (name: string, value: string) => fields.push([name, value]));
    parser.on('file', (_name: string, stream: NodeJS.ReadableStream) => stream.resume());
    parser.on('finish', () => resolve(fields));
    parser.on('error', (err: unknown) => reject(bad(err)));
    parser.end(body);
  });
}

function fromPairs(params: Iterable<[string, string]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of params) {
    const before = out[key];
    out[key] =
      before === undefined
        ? value
        : Array.isArray(before)
          ? [...(before as unknown[]), value]
          : [before, value];
  }
  return out;
}

/**
 * The handler's data, later sources winning: query, then body, then path parameters; `userId` is always
 * the authenticated caller's (or removed), so a client cannot claim to be someone else.
 */
export function mergeData(parts: {
  query: Record<string, unknown>;
  body: Record<string, unknown>;
  params: Record<string, string>;
  userId: string | undefined;
}): RequestData {
  const data: RequestData = { ...parts.query, ...parts.body, ...parts.params };
  delete data.userId;
  if (parts.userId !== undefined) data.userId = parts.userId;
  return data;
}

/** A handler's return value as the response body: strings become `{"message": …}`, nothing becomes null. */
export function toResponseBody(value: unknown): unknown {
  if (typeof value === 'string') return { message: value };
  return value ?? null;
}
