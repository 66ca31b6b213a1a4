import { createLocalJWKSet, errors, type CryptoKey, type JWSHeaderParameters } from 'jose';
import type { Logger } from '@portcullis/kit';
import { JwksUnavailableError } from '../errors.js';
import { jwksFreshnessMs, type FreshnessBounds } from './jwks-freshness.js';

/** How a fetch of a JWKS URL ended: the label of `portcullis_gateway_jwks_fetches_total`. */
export type JwksFetchResult = 'ok' | 'unreachable' | 'http_error' | 'invalid';

export interface JwksKeySetOptions {
  url: string;
  timeoutMs: number;
  freshness: FreshnessBounds;
  /** At most one fetch per this many ms, whatever asks for it (stale keys, an unknown `kid`, a retry). */
  refetchIntervalMs: number;
  log: Logger;
  now: () => number;
  onFetch: (result: JwksFetchResult) => void;
}

export interface JwksKeySet {
  /**
   * The key a token's header names. Fetches the set when it has none yet, when it is stale, and when the
   * `kid` is not in it, each at most once per `refetchIntervalMs`; a failed fetch keeps the keys in hand.
   * @throws JwksUnavailableError (503) while no set was ever fetched; jose's errors for a key not in it.
   */
  keyFor(header: JWSHeaderParameters): Promise<CryptoKey>;
  /** Epoch ms until which the keys in hand are fresh (0 before the first fetch). */
  freshUntilMs(): number;
}

/** A key set larger than this is refused: real ones hold a few keys in a few KiB. */
const MAX_JWKS_BYTES = 256 * 1024;

type Download =
  | { kind: 'ok'; keys: ReturnType<typeof createLocalJWKSet>; freshMs: number }
  | {
      kind: Exclude<JwksFetchResult, 'ok'>;
      err: unknown;
    };

/** One identity provider's public keys, cached by the HTTP cache headers of its JWKS URL. */
export function createJwksKeySet(o: JwksKeySetOptions): JwksKeySet {
  let keys: ReturnType<typeof createLocalJWKSet> | undefined;
  let freshUntil = 0;
  let lastAttempt = Number.NEGATIVE_INFINITY;
  let inflight: Promise<void> | undefined;
  const log = o.log.child({ component: 'jwks', url: o.url });

  const mayFetch = (): boolean => inflight !== undefined || o.now() - lastAttempt >= o.refetchIntervalMs;
  // concurrent askers share one fetch
  const fetchOnce = (): Promise<void> => {
    inflight ??= refresh().finally(() => {
      inflight = undefined;
    });
    return inflight;
  };

  async function refresh(): Promise<void> {
    lastAttempt = o.now();
    const got = await download(o);
    o.onFetch(got.kind);
    if (got.kind === 'ok') {
      keys = got.keys;
      freshUntil = o.now() + got.freshMs;
      log.debug({ freshMs: got.freshMs }, 'jwks fetched');
      return;
    }
    // at most once per refetch interval: a dead provider cannot flood the log
    log.warn({ result: got.kind, err: got.err, kept: keys !== undefined }, 'jwks fetch failed');
  }

  return {
    async keyFor(header) {
      if ((keys === undefined || o.now() >= freshUntil) && mayFetch()) await fetchOnce();
      if (keys === undefined) {
        const waitMs = lastAttempt + o.refetchIntervalMs - o.now();
        throw new JwksUnavailableError(Math.max(1, Math.ceil(waitMs / 1000)));
      }
      try {
        return await keys(header);
      } catch (err: unknown) {
        // a rotated key works at once; a flood of made-up kids costs one fetch per interval
        if (!(err instanceof errors.JWKSNoMatchingKey) || !mayFetch()) throw err;
        await fetchOnce();
        return keys(header);
      }
    },
    freshUntilMs: () => freshUntil,
  };
}

async function download(o: JwksKeySetOptions): Promise<Download> {
  let res: Response;
  let text: string;
  try {
    res = await fetch(o.url, {
      headers: { accept: 'application/json' },
      redirect: 'error',
      signal: AbortSignal.timeout(o.timeoutMs),
    });
    if (res.status !== 200) {
      await res.body?.cancel();
      return { kind: 'http_error', err: new Error(`answered ${res.status}`) };
    }
    text = await readText(res);
  } catch (err: unknown) {
    return { kind: 'unreachable', err };
  }
  try {
    if (Buffer.byteLength(text) > MAX_JWKS_BYTES) throw new Error(`larger than ${MAX_JWKS_BYTES} bytes`);
    const keys = createLocalJWKSet(JSON.parse(text) as Parameters<typeof createLocalJWKSet>[0]);
    const freshMs = jwksFreshnessMs(
      { cacheControl: res.headers.get('cache-control'), age: res.headers.get('age') },
      o.freshness,
    );
    return { kind: 'ok', keys, freshMs };
  } catch (err: unknown) {
    return { kind: 'invalid', err };
  }
}

/** The body, read no further than one byte past the limit. */
async function readText(res: Response): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  if (!res.body) return '';
  for await (const chunk of res.body) {
    const b = Buffer.from(chunk as Uint8Array);
    chunks.push(b);
    bytes += b.length;
    // leaving the loop cancels the stream
    if (bytes > MAX_JWKS_BYTES) break;
  }
  return Buffer.concat(chunks).toString('utf8');
}
