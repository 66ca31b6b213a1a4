import { fetchCapture } from './api-client.js';
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

Sends a stored request again, byte for byte, to <url> (from this process) and prints the target's status.

Options:
  --request <id>    the request id (required)
  --to <url>        where it goes (required); the path after the endpoint id is appended
${targetTlsHelp(20)}
  --token <token>   the endpoint's token (default: $INBOX_TOKEN, else the one \`inbox forward\` saved)
  --host <url>      the inbox (default: $INBOX_URL, else the endpoint's saved host, else http://localhost:8089)
  -h, --help        this text`;

const OPTIONS = {
  ...COMMON_OPTIONS,
  ...TARGET_TLS_OPTIONS,
  request: { type: 'string' },
  to: { type: 'string' },
  token: { type: 'string' },
} as const;

export async function runReplay(args: string[], ctx: CommandContext): Promise<void> {
  const { values, positionals } = parseCommandArgs(args, OPTIONS);
  if (values.help === true) return ctx.out(REPLAY_USAGE);
  const endpointId = requireEndpointId(positionals, REPLAY_USAGE);
  if (values.request === undefined)
    throw new UsageError(`--request <request_id> is required\n${REPLAY_USAGE}`);
  const to = requireUrl(values.to, '--to');
  const tls = await resolveTargetTls(ctx, values);
  const { host, token } = await resolveAccess(ctx, endpointId, values);
  const capture = await fetchCapture(host, { endpointId, requestId: values.request, token });
  const result = await sendCapture(capture, to, { signal: ctx.signal, tls });
  ctx.out(`${capture.time} ${describeCapture(capture)} ${describeResult(result)}`);
  if (result.kind !== 'answered')
    throw new UnreachableError(`replaying to ${to} failed: ${describeResult(result).slice(2)}`);
}
