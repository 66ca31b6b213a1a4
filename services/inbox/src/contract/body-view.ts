import { isUtf8 } from 'node:buffer';
import { checkJsonDepth } from '@portcullis/kit';
import { findHeader } from './raw-headers.js';

/**
 * A readable view of a captured body, built when it is read (the stored bytes stay authoritative and are
 * never transcoded): JSON and urlencoded forms parsed, other UTF-8 text as text, anything else none. JSON
 * nested deeper than `maxJsonDepth` stays text: the answer carrying the parsed value could not be serialised.
 */
export type BodyView =
  | { kind: 'empty' }
  | { kind: 'json'; value: unknown }
  | { kind: 'form'; fields: Record<string, string | string[]> }
  /** `jsonError` when the body claimed to be JSON and did not parse, or nests too deep. */
  | { kind: 'text'; text: string; jsonError?: string }
  /** Not UTF-8, containing NUL, or compressed (`Content-Encoding` other than identity): bytes only. */
  | { kind: 'none'; reason: 'binary' | 'encoded' };

export function buildBodyView(body: Buffer, rawHeaders: readonly string[], maxJsonDepth: number): BodyView {
  if (body.length === 0) return { kind: 'empty' };
  const encoding = findHeader(rawHeaders, 'content-encoding')?.trim().toLowerCase() ?? '';
  if (encoding !== '' && encoding !== 'identity') return { kind: 'none', reason: 'encoded' };
  if (!isText(body)) return { kind: 'none', reason: 'binary' };
  const text = body.toString('utf8');
  const type = mediaType(findHeader(rawHeaders, 'content-type'));
  if (type === 'application/json' || type.endsWith('+json')) {
    try {
      checkJsonDepth(text, maxJsonDepth);
      return { kind: 'json', value: JSON.parse(text) as unknown };
    } catch (err: unknown) {
      return { kind: 'text', text, jsonError: err instanceof Error ? err.message : String(err) };
    }
  }
  if (type === 'application/x-www-form-urlencoded') return { kind: 'form', fields: parseParams(text) };
  return { kind: 'text', text };
}

/** Valid UTF-8 without NUL bytes: what is shown as text. */
export function isText(body: Buffer): boolean {
  return isUtf8(body) && !body.includes(0);
}

/** Query or form parameters; a repeated name becomes a list, in order. */
export function parseParams(text: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const before = out[key];
    out[key] = before === undefined ? value : Array.isArray(before) ? [...before, value] : [before, value];
  }
  return out;
}

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}
