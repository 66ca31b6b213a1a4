import { BodyTooDeepError } from './errors.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x5b, 0x7b]);
const CLOSERS = new Set([0x5d, 0x7d]);

/**
 * True when JSON text nests arrays and objects deeper than `maxDepth` (`{}` is depth 1). One pass, no
 * recursion, before the text is parsed: what a service builds from a deep document (serialising it,
 * sanitising it) recurses and overflows the stack. Text that is not JSON gets an answer that means
 * nothing; the parser refuses it after.
 */
export function isJsonDeeperThan(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (OPENERS.has(c)) {
      if (++depth > maxDepth) return true;
    } else if (CLOSERS.has(c)) {
      depth--;
    }
  }
  return false;
}

/**
 * The one depth check of every JSON body a server parses: throws `BodyTooDeepError` (400 `BODY_TOO_DEEP`)
 * when `text` nests deeper than `maxDepth`. Call it before `JSON.parse`.
 */
export function checkJsonDepth(text: string, maxDepth: number): void {
  if (isJsonDeeperThan(text, maxDepth)) throw new BodyTooDeepError(maxDepth);
}
