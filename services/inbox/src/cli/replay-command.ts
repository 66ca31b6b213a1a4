import {
  fetchCapture,
  listCircuits,
  listDeadLetters,
  redriveDeadLetters,
  type ListedCircuit,
} from './api-client.js';
import { UnreachableError, UsageError } from './cli-errors.js';
import {
  COMMON_OPTIONS,
  parseCommandArgs,
  requireEndpointId,
  requireUrl,
  resolveAccess,
  type CommandContext,
} from './command-context.js';
import { describeCapture, describeResult, sendCapture } from './send-capture.js';
import { resolveTargetTls, TARGET_TLS_OPTIONS, targetTlsHelp } from './target-tls.js';

export const REPLAY_USAGE = `Usage: inbox replay <endpoint_id> --request <request_id> --to <url> [--ca <file> | --insecure]
                    [--token <token>] [--host <url>]
       inbox replay <endpoint_id> --dead-letters [--to <url>] [--token <token>] [--host <url>]

Sends a stored request again, byte for byte, to <url> (from this process) and prints the target's status.
With --dead-letters: redrives the endpoint's dead letters in the inbox (each capture goes back to the
target it died on, with a fresh attempt count) and prints what became of them; with --to as well, sends
each dead-lettered capture once to <url> from this process instead, and leaves the dead letters as they are.

Options:
  --request <id>    the request id
  --dead-letters    the endpoint's dead letters instead of one request
  --to <url>        where it goes (required with --request); the path after the endpoint id is appended
${targetTlsHelp(20)}
  --token <token>   the endpoint's token (default: $INBOX_TOKEN, else the one \`inbox forward\` saved)
  --host <url>      the inbox (default: $INBOX_URL, else the endpoint's saved host, else http://localhost:8089)
  -h, --help        this text`;

const OPTIONS = {
  ...COMMON_OPTIONS,
  ...TARGET_TLS_OPTIONS,
  request: { type: 'string' },
  'dead-letters': { type: 'boolean' },
  to: { type: 'string' },
  token: { type: 'string' },
} as const;

export async function runReplay(args: string[], ctx: CommandContext): Promise<void> {
  const { values, positionals } = parseCommandArgs(args, OPTIONS);
  if (values.help === true) return ctx.out(REPLAY_USAGE);
  const endpointId = requireEndpointId(positionals, REPLAY_USAGE);
  if (values['dead-letters'] === true) {
    if (values.request !== undefined)
      throw new UsageError(`--request or --dead-letters, not both\n${REPLAY_USAGE}`);
    return replayDeadLetters(ctx, endpointId, values);
  }
  if (values.request === undefined)
    throw new UsageError(`--request <request_id> or --dead-letters is required\n${REPLAY_USAGE}`);
  const to = requireUrl(values.to, '--to');
  const tls = await resolveTargetTls(ctx, values);
  const { host, token } = await resolveAccess(ctx, endpointId, values);
  const capture = await fetchCapture(host, { endpointId, requestId: values.request, token });
  const result = await sendCapture(capture, to, { signal: ctx.signal, tls });
  ctx.out(`${capture.time} ${describeCapture(capture)} ${describeResult(result)}`);
  if (result.kind !== 'answered')
    throw new UnreachableError(`replaying to ${to} failed: ${describeResult(result).slice(2)}`);
}

async function replayDeadLetters(
  ctx: CommandContext,
  endpointId: string,
  values: {
    to?: string | undefined;
    token?: string | undefined;
    host?: string | undefined;
    ca?: string | undefined;
    insecure?: boolean | undefined;
  },
): Promise<void> {
  const { host, token } = await resolveAccess(ctx, endpointId, values);
  if (values.to === undefined) {
    const r = await redriveDeadLetters(host, { endpointId, token });
    ctx.out(
      `redriven ${r.redriven}; still being forwarded to another target ${r.busy} (left); captures no longer kept ${r.gone} (removed)`,
    );
    if (r.redriven > 0) {
      for (const line of describeHolds(await listCircuits(host, { endpointId, token }), Date.now()))
        ctx.out(line);
    }
    return;
  }
  const to = requireUrl(values.to, '--to');
  const tls = await resolveTargetTls(ctx, values);
  // a capture dead on two targets is one capture: sent once
  const requestIds = [
    ...new Set((await listDeadLetters(host, { endpointId, token })).map((l) => l.requestId)),
  ];
  let failed = 0;
  for (const requestId of requestIds.reverse()) {
    const capture = await fetchCapture(host, { endpointId, requestId, token });
    const result = await sendCapture(capture, to, { signal: ctx.signal, tls });
    ctx.out(`${capture.time} ${describeCapture(capture)} ${describeResult(result)}`);
    if (result.kind !== 'answered') failed += 1;
  }
  ctx.out(`${requestIds.length} dead-lettered captures sent to ${to}`);
  if (failed > 0)
    throw new UnreachableError(`replaying to ${to} failed for ${failed} of ${requestIds.length}`);
}

/**
 * When the redriven deliveries go: at once, or, to a target whose circuit is open (it failed them), once
 * the circuit lets a delivery through again.
 */
export function describeHolds(circuits: readonly ListedCircuit[], nowMs: number): string[] {
  const held = circuits.filter((c) => c.state === 'open' && c.openUntil !== undefined);
  if (held.length === 0) return ['they are forwarded now'];
  return held.map((c) => {
    const inSec = Math.max(0, Math.ceil((Date.parse(c.openUntil ?? '') - nowMs) / 1000));
    return `to ${c.target}: held while its circuit is open, until ${c.openUntil ?? ''} (in ${inSec} s)`;
  });
}
