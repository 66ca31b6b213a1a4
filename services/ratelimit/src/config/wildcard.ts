/** A compiled wildcard value: true when `value` matches it. */
export type WildcardMatcher = (value: string) => boolean;

/** True when a rule's value is a pattern rather than a literal. */
export function isWildcard(value: string): boolean {
  return value.includes('*');
}

/**
 * Compiles a rule value holding `*` once, at configuration load: each `*` stands for zero or more
 * characters, the text between them must appear in order, and the first and last pieces are anchored to
 * the start and end of the value. Matching is a few `startsWith`/`indexOf` calls, no regular expression.
 */
export function compileWildcard(pattern: string): WildcardMatcher {
  const pieces = pattern.split('*');
  const first = pieces[0] ?? '';
  const last = pieces[pieces.length - 1] ?? '';
  const middle = pieces.slice(1, -1).filter((p) => p !== '');
  const minLength = pieces.reduce((n, p) => n + p.length, 0);
  return (value) => {
    if (value.length < minLength || !value.startsWith(first) || !value.endsWith(last)) return false;
    let at = first.length;
    const end = value.length - last.length;
    for (const piece of middle) {
      const found = value.indexOf(piece, at);
      if (found === -1 || found + piece.length > end) return false;
      at = found + piece.length;
    }
    return true;
  };
}
