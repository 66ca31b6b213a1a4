import type { CaptureDetail } from '../api/capture-json.js';
import { createEndpoint } from './api-client.js';
import { UsageError } from './cli-errors.js';
import {
  COMMON_OPTIONS,
  parseCommandArgs,
  requireUrl,
  resolveHost,
  type CommandContext,
} from './command-context.js';
import { saveEndpoint } from './endpoint-store.js';
import { followStream } from './live-stream.js';
import { describeCapture, describeResult, sendCapture } from './send-capture.js';
import { resolveTargetTls, TARGET_TLS_OPTIONS, targetTlsHelp } from './target-tls.js';

export const FORWARD_USAGE = `Usage: inbox forward --to <url> [--ca <file> | --insecure] [--host <url>]

Creates an anonymous endpoint, prints its receive URL and forwards every request it captures to <url>,
from this process (so <url> may be localhost): same method, body bytes and headers (minus hop-by-hop ones,
Host set for <url>), the path after the endpoint id appended to <url>'s path. Runs until interrupted.

Options:
  --to <url>     where captures go (required)
${targetTlsHelp(17)}
  --host <url>   the inbox (default: $INBOX_URL, else http://localhost:8089)
  -h, --help     this text`;

const OPTIONS = { ...COMMON_OPTIONS, ...TARGET_TLS_OPTIONS, to: { type: 'string' } } as const;

export async function runForward(args: string[], ctx: CommandContext): Promise<void> {
  const { values, positionals } = parseCommandArgs(args, OPTIONS);
  if (values.help === true) return ctx.out(FORWARD_USAGE);
  if (positionals.length > 0)
    throw new UsageError(`unexpected argument ${positionals.join(' ')}\n${FORWARD_USAGE}`);
  const to = requireUrl(values.to, '--to');
  const host = resolveHost(ctx, values.host);
  const tls = await resolveTargetTls(ctx, values);
  const endpoint = await createEndpoint(host);
  await saveEndpoint(ctx.settings.configPath, endpoint.id, {
    host,
    token: endpoint.token,
    receiveUrl: endpoint.receiveUrl,
    createdAt: endpoint.createdAt,
  });
  ctx.out(`Forwarding ${endpoint.receiveUrl} → ${to}`);
  ctx.out(`Endpoint ${endpoint.id} (saved in ${ctx.settings.configPath}); Ctrl-C to stop`);
  let ready = false;
  await followStream({
    host,
    endpointId: endpoint.id,
    token: endpoint.token,
    full: true,
    signal: ctx.signal,
    onReady: () => {
      if (!ready) ctx.out('Waiting for requests');
      ready = true;
    },
    onReconnect: ({ delayMs, reason }) =>
      ctx.err(`stream interrupted (${reason}); reconnecting in ${delayMs} ms`),
    onRequest: async (e) => {
      const capture = e.data as CaptureDetail;
      const result = await sendCapture(capture, to, { signal: ctx.signal, tls });
      ctx.out(`${capture.time} ${describeCapture(capture)} ${describeResult(result)}`);
    },
  });
}
