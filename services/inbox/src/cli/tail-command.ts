import type { CaptureDetail, CaptureSummary } from '../contract/capture-json.js';
import { matchesCapture, parseCaptureFilter, type CaptureFilter } from '../contract/capture-filter.js';
import {
  COMMON_OPTIONS,
  parseCommandArgs,
  requireEndpointId,
  resolveAccess,
  type CommandContext,
} from './command-context.js';
import { UsageError } from './cli-errors.js';
import { followStream } from './live-stream.js';
import { describeCapture } from './send-capture.js';
import { isStreamId } from '../contract/stream-id.js';

export const TAIL_USAGE = `Usage: inbox tail <endpoint_id> [--json] [--since <request_id>] [--filter <filter>] [--token <token>] [--host <url>]

Prints the endpoint's requests as they arrive, one line each, with the outcome of the endpoint's signature
check (verified, failed and why, or not checked). After a network drop it reconnects with
backoff and resumes where it stopped: nothing missed, nothing twice. Runs until interrupted.

Options:
  --json                 print each full record as one JSON line
  --since <request_id>   start after this request (default: from now)
  --filter <filter>      only requests it matches, in the API's syntax, e.g.
                         'method=POST&path=/orders/*&header=x-github-event:push&q=refund'
                         (method, path, header, query, q, from, to; see the README)
  --token <token>        the endpoint's token (default: $INBOX_TOKEN, else the one \`inbox forward\` saved)
  --host <url>           the inbox (default: $INBOX_URL, else the endpoint's saved host, else http://localhost:8089)
  -h, --help             this text`;

const OPTIONS = {
  ...COMMON_OPTIONS,
  json: { type: 'boolean' },
  since: { type: 'string' },
  filter: { type: 'string' },
  token: { type: 'string' },
} as const;

export async function runTail(args: string[], ctx: CommandContext): Promise<void> {
  const { values, positionals } = parseCommandArgs(args, OPTIONS);
  if (values.help === true) return ctx.out(TAIL_USAGE);
  const endpointId = requireEndpointId(positionals, TAIL_USAGE);
  if (values.since !== undefined && !isStreamId(values.since)) {
    throw new UsageError(`--since ${values.since}: expected a request id such as 1700000000000-0`);
  }
  const filter = values.filter === undefined ? undefined : readFilter(values.filter);
  const { host, token } = await resolveAccess(ctx, endpointId, values);
  const json = values.json === true;
  await followStream({
    host,
    endpointId,
    token,
    // the filter reads headers and body: full records
    full: json || filter !== undefined,
    lastEventId: values.since,
    signal: ctx.signal,
    onReconnect: ({ delayMs, reason }) =>
      ctx.err(`stream interrupted (${reason}); reconnecting in ${delayMs} ms`),
    onRequest: (e) => {
      if (filter && !isMatch(filter, e.data as CaptureDetail)) return;
      if (json) return ctx.out(JSON.stringify(e.data));
      const c = e.data as CaptureSummary;
      ctx.out(
        `${c.time} ${c.id} ${describeCapture(c)} ${c.bodySize} bytes, ${describeSignature(c.signature)}`,
      );
    },
  });
}

/** `signature verified`, `signature failed (mismatch)`, `signature not checked`. */
export function describeSignature(s: CaptureSummary['signature']): string {
  switch (s.status) {
    case 'verified':
      return 'signature verified';
    case 'failed':
      return `signature failed (${s.reason.replaceAll('_', ' ')})`;
    case 'not_checked':
      return 'signature not checked';
  }
}

/** `--filter`: the API's query-string syntax, checked here so a typo is a usage error, not silence. */
function readFilter(text: string): CaptureFilter {
  const { filter, problems } = parseCaptureFilter(new URLSearchParams(text), { unknown: 'refuse' });
  if (!filter) throw new UsageError(`--filter: ${problems.join('; ')}`);
  // a capture is shown as it arrives, before any forwarding: the outcome is for the API's list
  if (filter.forwarding !== undefined) throw new UsageError('--filter: forwarding: not available in tail');
  return filter;
}

/** The server's rules, applied to each capture as it arrives. */
function isMatch(filter: CaptureFilter, d: CaptureDetail): boolean {
  return matchesCapture(filter, {
    ...d,
    rawHeaders: d.headers.flat(),
    body: Buffer.from(d.bodyBase64, 'base64'),
  });
}
