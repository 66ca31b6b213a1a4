/** Why a scrape failed, as the `result` label of `portcullis_operator_shadow_report_scrapes_total`. */
export type ScrapeFailure = 'timeout' | 'unreachable' | 'http_status' | 'too_large' | 'unreadable';

export class ScrapeError extends Error {
  constructor(
    readonly reason: ScrapeFailure,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A metrics endpoint's text, within `timeoutMs` for the whole exchange and `maxBytes` of (decoded) body:
 * a larger body is dropped as soon as it passes the limit, unread past it.
 */
export async function fetchMetrics(url: string, o: { timeoutMs: number; maxBytes: number }): Promise<string> {
  const signal = AbortSignal.timeout(o.timeoutMs);
  try {
    const res = await fetch(url, { signal, headers: { accept: 'text/plain' } });
    if (res.status !== 200) {
      await res.body?.cancel();
      throw new ScrapeError('http_status', `HTTP ${res.status}`);
    }
    if (Number(res.headers.get('content-length')) > o.maxBytes) {
      await res.body?.cancel();
      throw tooLarge(o.maxBytes);
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    if (res.body) {
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
        size += chunk.byteLength;
        if (size > o.maxBytes) throw tooLarge(o.maxBytes);
        chunks.push(chunk);
      }
    }
    return Buffer.concat(chunks, size).toString('utf8');
  } catch (err: unknown) {
    if (err instanceof ScrapeError) throw err;
    if (signal.aborted) throw new ScrapeError('timeout', `no complete answer within ${o.timeoutMs} ms`);
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new ScrapeError('unreachable', cause?.code ?? cause?.message ?? String(err));
  }
}

function tooLarge(maxBytes: number): ScrapeError {
  return new ScrapeError('too_large', `the body is larger than ${maxBytes} bytes`);
}
