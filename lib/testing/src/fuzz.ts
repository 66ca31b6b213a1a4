import fc from 'fast-check';
import { sendRawBytes } from './raw-http.js';

/**
 * The seed every fuzz suite starts from unless `FUZZ_SEED` names another: a failure prints its seed, and
 * `FUZZ_SEED=<seed> npx vitest run <file>` replays the same requests.
 */
export const DEFAULT_FUZZ_SEED = 15_015;

/** `FUZZ_SEED` as an integer, or the default. */
export function fuzzSeed(): number {
  const raw = process.env.FUZZ_SEED;
  if (raw === undefined || raw === '') return DEFAULT_FUZZ_SEED;
  const seed = Number(raw);
  if (!Number.isSafeInteger(seed)) throw new Error(`FUZZ_SEED=${JSON.stringify(raw)}: expected an integer`);
  return seed;
}

/**
 * `FUZZ_SCALE` (default 1): every suite's count of generated inputs is multiplied by it, so a long run
 * (`FUZZ_SCALE=20`) searches further than the bounded one `npm test` makes.
 */
export function fuzzScale(): number {
  const raw = process.env.FUZZ_SCALE;
  if (raw === undefined || raw === '') return 1;
  const scale = Number(raw);
  if (!(scale > 0)) throw new Error(`FUZZ_SCALE=${JSON.stringify(raw)}: expected a number > 0`);
  return scale;
}

/**
 * The time one fuzz test may take (one property of a few thousand requests): a minute, times `FUZZ_SCALE`.
 * For `describe(name, { timeout: fuzzTimeoutMs() }, …)`: the integration project's 30 s is for single calls,
 * and a shared 2-core machine may run a suite at a third of its usual speed.
 */
export function fuzzTimeoutMs(): number {
  return Math.round(60_000 * fuzzScale());
}

/**
 * What a body must never show a client: where the code runs and how it failed inside. Each pattern is one
 * kind of leak, named for the report:
 * - a stack frame (`at fn (file.ts:12:3)`, `at file:///…`) or any source path with a line number;
 * - a path into the install (`node_modules`, `node:internal`, an absolute path to a `.ts`/`.js` file);
 * - a JavaScript error's own `Name: message` text (`TypeError: Cannot read …`), which only an unmapped
 *   error carries; our errors answer `{error, code}` with a message written for the client;
 * - Node's error codes (`ERR_UNESCAPED_CHARACTERS`, `ECONNREFUSED`): a raw library or socket failure;
 * - Redis and driver internals (`ReplyError`, `WRONGTYPE`, `NOSCRIPT`, `MaxRetriesPerRequestError`).
 * Stable error codes (`UNSUPPORTED_MEDIA_TYPE`) are not here: kit answers a fastify client error (a body that
 * does not parse, a media type it refuses) with the documented code of its status, which names no file or line.
 */
export const INTERNAL_DETAIL_PATTERNS: ReadonlyArray<{ name: string; pattern: RegExp }> = [
  { name: 'stack frame', pattern: /\bat (?:\S+ \()?(?:file:\/\/|\/|node:)\S*:\d+(?::\d+)?\)?/ },
  { name: 'source line', pattern: /(?<![\w.-])[\w.-]+\.(?:[cm]?[jt]sx?):\d+/ },
  { name: 'install path', pattern: /node_modules|node:internal|\/(?:src|dist|lib)\/[\w/.-]+\.[cm]?[jt]s\b/ },
  {
    name: 'error name',
    pattern: /\b(?:Type|Range|Reference|Syntax|Eval|URI|Aggregate|Assertion)?Error: \S/,
  },
  {
    name: 'node error code',
    pattern: /\b(?:ERR_[A-Z0-9_]{3,}|E(?:CONNREFUSED|CONNRESET|ADDRINUSE|PIPE|TIMEDOUT|NOTFOUND|AI_AGAIN))\b/,
  },
  {
    name: 'driver internals',
    pattern: /\b(?:ReplyError|WRONGTYPE|NOSCRIPT|MaxRetriesPerRequestError|ioredis)\b/,
  },
];

/**
 * The first internal detail in `text` that the request itself did not carry (an answer may echo what the
 * client sent: its path in a 404, its body in an echo), as `"<kind>: <match>"`; undefined when clean.
 */
export function findInternalDetail(text: string, sent = ''): string | undefined {
  for (const { name, pattern } of INTERNAL_DETAIL_PATTERNS) {
    const m = pattern.exec(text);
    if (m && !sent.includes(m[0])) return `${name}: ${m[0]}`;
  }
  return undefined;
}

export interface FuzzAnswer {
  status: number;
  body: string;
}

export interface AnswerRules {
  /** Statuses ≥ 500 the surface answers on purpose (a 503 while a backend is away). Default none. */
  deliberate?: readonly number[];
  /** What was sent, in any text form: a detail it carried is no leak when echoed. */
  sent?: string;
}

/** Why an answer breaks the fuzz contract (a 5xx not deliberate, or internal detail), or undefined. */
export function checkAnswer(answer: FuzzAnswer, rules: AnswerRules = {}): string | undefined {
  if (answer.status >= 500 && !(rules.deliberate ?? []).includes(answer.status)) {
    return `status ${answer.status}: ${answer.body.slice(0, 300)}`;
  }
  const leak = findInternalDetail(answer.body, rules.sent);
  return leak === undefined
    ? undefined
    : `status ${answer.status} leaks ${leak}: ${answer.body.slice(0, 300)}`;
}

/**
 * The request-smuggling shape in the first request of `bytes`, or undefined: Content-Length together with
 * Transfer-Encoding, or two Content-Lengths that differ. RFC 9112 §6.3 has a server refuse both (400 and
 * close): a proxy in front that frames the body the other way would smuggle the rest in as a request.
 */
export function findFramingConflict(bytes: Buffer | string): string | undefined {
  const text = bytes.toString('latin1');
  const end = text.search(/\r?\n\r?\n/);
  const lines = (end === -1 ? text : text.slice(0, end)).split(/\r?\n/).slice(1);
  const values = (name: string): string[] =>
    lines.flatMap((l) => {
      const colon = l.indexOf(':');
      return colon > 0 && l.slice(0, colon).toLowerCase() === name ? [l.slice(colon + 1).trim()] : [];
    });
  const lengths = values('content-length');
  if (lengths.length > 0 && values('transfer-encoding').length > 0)
    return 'Content-Length with Transfer-Encoding';
  if (new Set(lengths).size > 1) return `two Content-Lengths (${lengths.join(', ')})`;
  return undefined;
}

/**
 * Sends raw `bytes` (a request the HTTP parser may refuse) to `port` and checks what came back as
 * `checkAnswer` does, every status in it: never a 5xx or an internal detail. A smuggling shape
 * (`findFramingConflict`) must get one 400 or a close without an answer: nothing else, and no answer to
 * a request smuggled in behind it.
 */
export async function checkRawAnswer(port: number, bytes: Buffer | string): Promise<string | undefined> {
  const a = await sendRawBytes(port, bytes);
  const bad = a.statuses.find((s) => s >= 500);
  if (bad !== undefined) return `status ${bad}: ${a.text.slice(0, 300)}`;
  const conflict = findFramingConflict(bytes);
  if (
    conflict !== undefined &&
    !(a.statuses.length === 0 || (a.statuses.length === 1 && a.statuses[0] === 400))
  )
    return `${conflict} answered ${a.statuses.join(', ')}, not a 400 or a close: ${a.text.slice(0, 300)}`;
  return checkAnswer({ status: 0, body: a.text }, { sent: bytes.toString() });
}

const MAX_SHOWN_CHARS = 4000;

export interface FuzzRunOptions {
  /** How many generated inputs (times `FUZZ_SCALE`); each is one request (or a few) on a real socket. */
  numRuns: number;
  /** Default `fuzzSeed()`. */
  seed?: number;
}

/**
 * Runs `check` on `numRuns` inputs drawn from `arbitrary` with a fixed seed, one after another. `check`
 * returns the problem with its input's answer, or undefined. A failure shrinks to a small input and throws
 * with the seed, the replay path and the counterexample in the message.
 */
export async function fuzz<T>(
  arbitrary: fc.Arbitrary<T>,
  check: (input: T) => Promise<string | undefined>,
  o: FuzzRunOptions,
): Promise<void> {
  const seed = o.seed ?? fuzzSeed();
  const details = await fc.check(
    fc.asyncProperty(arbitrary, async (input) => {
      const problem = await check(input);
      if (problem !== undefined) throw new Error(problem);
    }),
    { seed, numRuns: Math.max(1, Math.round(o.numRuns * fuzzScale())), endOnFailure: false },
  );
  if (details.failed) {
    const reason = details.errorInstance instanceof Error ? details.errorInstance.message : 'failed';
    const shown = fc.stringify(details.counterexample);
    throw new Error(
      `fuzz failed (FUZZ_SEED=${seed}, path ${String(details.counterexamplePath)}): ${reason}\n` +
        // a generated header of kilobytes would drown the report
        `counterexample: ${shown.length > MAX_SHOWN_CHARS ? `${shown.slice(0, MAX_SHOWN_CHARS)}… (${shown.length} chars)` : shown}`,
    );
  }
}
