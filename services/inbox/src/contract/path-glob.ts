// The `path` filter's glob: `*` stands for any run of characters (none, `/` and line breaks included),
// every other character is literal and case-sensitive, and the glob spans the whole path. Matched without a
// regular expression: a backtracking one takes exponential time on `*a*a*a…b` (issue 34). Here the literal
// pieces between the stars are found left to right, each at its first place (a later piece never needs an
// earlier piece further right), with Knuth–Morris–Pratt: a match makes at most 2 comparisons per character
// of the path, whatever the glob. Pure: the inspector bundles it.

/** Counts the character comparisons of a match: how the tests measure its work. */
export interface StepMeter {
  steps: number;
}

/** A literal piece between two stars, with its KMP table: the length of the longest proper border of each prefix. */
interface Piece {
  text: string;
  borders: Int32Array;
}

export interface PathGlob {
  /** No `*`: the path is exactly `head`. */
  readonly exact: boolean;
  /** The literal text before the first `*`, and after the last. */
  readonly head: string;
  readonly tail: string;
  /** The non-empty literal pieces between stars, in order. */
  readonly middles: readonly Piece[];
}

export function compilePathGlob(glob: string): PathGlob {
  const parts = glob.split('*');
  if (parts.length === 1) return { exact: true, head: glob, tail: '', middles: [] };
  return {
    exact: false,
    head: parts[0] ?? '',
    tail: parts.at(-1) ?? '',
    middles: parts
      .slice(1, -1)
      .filter((p) => p !== '')
      .map(toPiece),
  };
}

/** Whether `path` matches, in at most 2 · `path.length` comparisons (added to `meter`). */
export function matchesPathGlob(g: PathGlob, path: string, meter: StepMeter = { steps: 0 }): boolean {
  const end = path.length - g.tail.length;
  if (end < g.head.length || (g.exact && path.length !== g.head.length)) return false;
  if (!equalsAt(path, { at: 0, literal: g.head, meter })) return false;
  if (!equalsAt(path, { at: end, literal: g.tail, meter })) return false;
  let from = g.head.length;
  for (const piece of g.middles) {
    const found = indexOfPiece(piece, { path, from, end, meter });
    if (found === -1) return false;
    from = found + piece.text.length;
  }
  return true;
}

function equalsAt(path: string, o: { at: number; literal: string; meter: StepMeter }): boolean {
  for (let i = 0; i < o.literal.length; i++) {
    o.meter.steps += 1;
    if (path.charCodeAt(o.at + i) !== o.literal.charCodeAt(i)) return false;
  }
  return true;
}

function toPiece(text: string): Piece {
  const borders = new Int32Array(text.length);
  let k = 0;
  for (let i = 1; i < text.length; i++) {
    while (k > 0 && text.charCodeAt(i) !== text.charCodeAt(k)) k = borders[k - 1] ?? 0;
    if (text.charCodeAt(i) === text.charCodeAt(k)) k += 1;
    borders[i] = k;
  }
  return { text, borders };
}

/**
 * Where `piece` first occurs wholly inside `path[from, end)`, or -1. Each character read costs one comparison,
 * plus one per fall back to a shorter border, and there are never more of those than characters read.
 */
function indexOfPiece(
  piece: Piece,
  o: { path: string; from: number; end: number; meter: StepMeter },
): number {
  const { text, borders } = piece;
  let k = 0;
  for (let i = o.from; i < o.end; i++) {
    const c = o.path.charCodeAt(i);
    o.meter.steps += 1;
    while (k > 0 && c !== text.charCodeAt(k)) {
      o.meter.steps += 1;
      k = borders[k - 1] ?? 0;
    }
    if (c === text.charCodeAt(k)) k += 1;
    if (k === text.length) return i + 1 - k;
  }
  return -1;
}
