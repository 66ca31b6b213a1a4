import type { CaptureDetail } from '../contract/capture-json.js';
import { createEndpoint } from './api-client.js';
import { UsageError } from './cli-errors.js';
import {
  COMMON_OPTIONS,
  parseCommandArgs,
  requireUrl,
  resolveAccess,
  resolveHost,
  type CommandContext,
} from './command-context.js';
import {
  findSavedEndpoint,
  saveEndpoint,
  saveForwardPosition,
  type SavedEndpoint,
} from './endpoint-store.js';
import { followStream } from './live-stream.js';
import { describeCapture, describeResult, sendCapture } from './send-capture.js';
import { resolveTargetTls, TARGET_TLS_OPTIONS, targetTlsHelp } from './target-tls.js';

export const FORWARD_USAGE = `Usage: inbox forward --to <url> [--endpoint <id> [--token <token>]] [--ca <file> | --insecure] [--host <url>]

Creates an anonymous endpoint (or, with --endpoint, follows one already made), prints its receive URL and
forwards every request it captures to <url>, from this process (so <url> may be localhost): same method,
body bytes and headers (minus hop-by-hop ones, Host set for <url>), the path after the endpoint id appended
to <url>'s path. Runs until interrupted. The last capture sent on is saved after each one: with --endpoint
it resumes after it, and after a dropped connection or a suspension (a laptop asleep) it catches up from the
inbox, saying how many captures it caught up on.

Options:
  --to <url>         where captures go (required)
  --endpoint <id>    an endpoint made before (its token from --token, $INBOX_TOKEN or the local store)
  --token <token>    the endpoint's token
${targetTlsHelp(21)}
  --host <url>       the inbox (default: $INBOX_URL, else the endpoint's, else http://localhost:8089)
  -h, --help         this text`;

const OPTIONS = {
  ...COMMON_OPTIONS,
  ...TARGET_TLS_OPTIONS,
  to: { type: 'string' },
  endpoint: { type: 'string' },
  token: { type: 'string' },
} as const;

export async function runForward(args: string[], ctx: CommandContext): Promise<void> {
  const { values, positionals } = parseCommandArgs(args, OPTIONS);
  if (values.help === true) return ctx.out(FORWARD_USAGE);
  if (positionals.length > 0)
    throw new UsageError(`unexpected argument ${positionals.join(' ')}\n${FORWARD_USAGE}`);
  if (values.token !== undefined && values.endpoint === undefined)
    throw new UsageError(`--token needs --endpoint\n${FORWARD_USAGE}`);
  const to = requireUrl(values.to, '--to');
  const tls = await resolveTargetTls(ctx, values);
  const { id, endpoint } =
    values.endpoint === undefined
      ? await createForwardEndpoint(ctx, values.host)
      : await resumeForwardEndpoint(ctx, values.endpoint, values);
  const { host, token } = endpoint;
  ctx.out(`Forwarding ${endpoint.receiveUrl || `endpoint ${id}`} → ${to}`);
  ctx.out(`Endpoint ${id} (saved in ${ctx.settings.configPath}); Ctrl-C to stop`);
  if (endpoint.lastForwardedId !== undefined) ctx.out(`Resuming after ${endpoint.lastForwardedId}`);
  let ready = false;
  await followStream({
    host,
    endpointId: id,
    token,
    full: true,
    signal: ctx.signal,
    lastEventId: endpoint.lastForwardedId,
    ...(endpoint.lastForwardedAt ? { gapSince: Date.parse(endpoint.lastForwardedAt) } : {}),
    onReady: () => {
      if (!ready) ctx.out('Waiting for requests');
      ready = true;
    },
    onReconnect: ({ delayMs, reason }) =>
      ctx.err(`stream interrupted (${reason}); reconnecting in ${delayMs} ms`),
    onCaughtUp: ({ count, gapMs }) =>
      ctx.out(`caught up on ${count} capture${count === 1 ? '' : 's'} after ${formatGap(gapMs)}`),
    onRequest: async (e) => {
      const capture = e.data as CaptureDetail;
      const result = await sendCapture(capture, to, { signal: ctx.signal, tls });
      ctx.out(`${capture.time} ${describeCapture(capture)} ${describeResult(result)}`);
      await saveForwardPosition(ctx.settings.configPath, id, { endpoint, requestId: e.id, time: new Date() });
    },
  });
}

async function createForwardEndpoint(
  ctx: CommandContext,
  hostFlag: string | undefined,
): Promise<{ id: string; endpoint: SavedEndpoint }> {
  const host = resolveHost(ctx, hostFlag);
  const created = await createEndpoint(host);
  const endpoint = {
    host,
    token: created.token,
    receiveUrl: created.receiveUrl,
    createdAt: created.createdAt,
  };
  await saveEndpoint(ctx.settings.configPath, created.id, endpoint);
  return { id: created.id, endpoint };
}

/** An endpoint made before: where the local store says it was left, else from now. */
async function resumeForwardEndpoint(
  ctx: CommandContext,
  id: string,
  flags: { host?: string | undefined; token?: string | undefined },
): Promise<{ id: string; endpoint: SavedEndpoint }> {
  const { host, token } = await resolveAccess(ctx, id, flags);
  const saved = await findSavedEndpoint(ctx.settings.configPath, id);
  return { id, endpoint: { receiveUrl: '', createdAt: '', ...saved, host, token } };
}

/** `850ms`, `42s`, `3m 12s`, `2h 5m`. */
function formatGap(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}
