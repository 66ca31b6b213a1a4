import { CliError, UsageError } from './cli-errors.js';
import { loadCliSettings } from './cli-settings.js';
import type { CommandContext } from './command-context.js';
import { FORWARD_USAGE, runForward } from './forward-command.js';
import { REPLAY_USAGE, runReplay } from './replay-command.js';
import { runTail, TAIL_USAGE } from './tail-command.js';

// `inbox <command>`: bin/inbox.mjs runs this. Errors go to stderr as one line; the exit code is the
// error's (2 for usage, 1 otherwise).

const USAGE = `Usage: inbox <command> [options]

Commands:
  forward --to <url> [--endpoint <id>]                forward an endpoint's captures to a local URL
  tail <endpoint_id> [--json]                         print an endpoint's requests as they arrive
  replay <endpoint_id> --request <id> --to <url>      send a stored request again, byte for byte
  replay <endpoint_id> --dead-letters [--to <url>]    redrive the endpoint's dead letters (or send them to <url>)

Every command takes --host <url> (or $INBOX_URL; default http://localhost:8089) and --help.
forward and replay take --ca <file> (trust a private CA) or --insecure (no check) for an https target.
Endpoints created by \`forward\` are remembered in $INBOX_CONFIG, else $XDG_CONFIG_HOME/portcullis/inbox.json,
else ~/.config/portcullis/inbox.json.

${[FORWARD_USAGE, TAIL_USAGE, REPLAY_USAGE].map((u) => u.split('\n')[0]).join('\n')}`;

const COMMANDS = { forward: runForward, tail: runTail, replay: runReplay } as const;

function isCommand(name: string): name is keyof typeof COMMANDS {
  return Object.hasOwn(COMMANDS, name);
}

async function runCli(argv: string[], ctx: CommandContext): Promise<void> {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') return ctx.out(USAGE);
  if (!isCommand(name)) throw new UsageError(`unknown command ${name}\n${USAGE}`);
  await COMMANDS[name](args, ctx);
}

const controller = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => controller.abort());

try {
  await runCli(process.argv.slice(2), {
    settings: loadCliSettings(),
    out: (line) => process.stdout.write(line + '\n'),
    err: (line) => process.stderr.write(line + '\n'),
    signal: controller.signal,
  });
} catch (e: unknown) {
  if (e instanceof CliError) {
    process.stderr.write(`inbox: ${e.message}\n`);
    process.exitCode = e.exitCode;
  } else {
    process.stderr.write(
      `inbox: unexpected error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
    );
    process.exitCode = 1;
  }
}
