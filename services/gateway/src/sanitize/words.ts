import { stripTags, toPhpString, truncateChars } from './php-builtins.js';

// PW `word()` and `words()`, through a port of `wordsArray()`: words are runs of letters, marks, digits and
// connector punctuation (`_`), with apostrophes inside words; numbers keep their format ("-1.5", "1,000").

interface WordsOptions {
  /** Characters that count as part of a word besides the default ones. */
  keepChars: string;
  maxWordChars: number;
  maxWords: number;
}

const WORD_CHAR = /^[\p{L}\p{M}\p{N}\p{Pc}]$/u;
const CONNECTOR = /^\p{Pc}$/u;
/** Kept inside a word ("don't"), as PW's keepApostrophe default promises. */
const APOSTROPHES = "'\u2019";
const MAX_CHARS = 1024;

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/** Connector punctuation at either end of a word is dropped unless it is a kept character. */
function trimConnectors(word: string, keepChars: string): string {
  const chars = Array.from(word);
  const dropped = (c: string | undefined): boolean =>
    c !== undefined && CONNECTOR.test(c) && !keepChars.includes(c);
  while (dropped(chars[0])) chars.shift();
  while (dropped(chars[chars.length - 1])) chars.pop();
  return chars.join('');
}

function splitWords(s: string, keepChars: string): string[] {
  const chars = Array.from(s);
  const words: string[] = [];
  let current = '';
  chars.forEach((c, i) => {
    const next = chars[i + 1];
    if ((c === '-' || c === '\u2212') && isDigit(next)) {
      // a minus sign starts a (negative) number
      words.push(current);
      current = c;
    } else if (
      WORD_CHAR.test(c) ||
      keepChars.includes(c) ||
      ((c === '.' || c === ',') && isDigit(next)) ||
      (APOSTROPHES.includes(c) && current !== '' && next !== undefined && WORD_CHAR.test(next))
    ) {
      current += c;
    } else {
      words.push(current);
      current = '';
    }
  });
  words.push(current);
  return words;
}

function wordsArray(value: unknown, o: WordsOptions): string[] {
  // PW flattens arrays with maxDepth 0, so nested arrays are left out
  const source = Array.isArray(value)
    ? value
        .filter((v) => !Array.isArray(v))
        .map(toPhpString)
        .join(' ')
    : toPhpString(value);
  const out: string[] = [];
  for (const raw of splitWords(stripTags(source), o.keepChars)) {
    const word = trimConnectors(raw, o.keepChars);
    const length = Array.from(word).length;
    if (length === 0 || length > o.maxWordChars) continue;
    if (o.keepChars !== '' && Array.from(word).every((c) => o.keepChars.includes(c))) continue;
    out.push(word);
    if (out.length === o.maxWords) break;
  }
  return out;
}

function collapseRepeats(s: string, chars: string): string {
  let out = s;
  for (const c of chars) while (out.includes(c + c)) out = out.replaceAll(c + c, c);
  return out;
}

/** The first word (at most 80 characters; longer words are skipped), or ''. */
export function word(value: unknown): string {
  return wordsArray(value, { keepChars: '', maxWordChars: 80, maxWords: 1 })[0] ?? '';
}

/**
 * Up to 99 words joined by single spaces, hyphens and underscores kept inside words (doubled ones
 * collapsed, leading and trailing ones dropped), at most 1024 characters.
 */
export function words(value: unknown): string {
  const keepChars = '-_';
  const joined = wordsArray(value, { keepChars, maxWordChars: 255, maxWords: 99 }).join(' ');
  return collapseRepeats(truncateChars(joined, MAX_CHARS), keepChars).replace(/^[-_]+|(?<![-_])[-_]+$/g, '');
}
