import { type CallFrame, type Origin, originOf } from './cpu-profile.js';

export interface LegendEntry {
  label: string;
  fill: string;
}

/** Hue and saturation of each kind of origin; a package's hue is its own, from its name. */
const KIND_COLOURS: Record<
  Exclude<Origin['kind'], 'package'>,
  { hue: number; saturation: number; label: string }
> = {
  own: { hue: 18, saturation: 85, label: 'our code' },
  node: { hue: 110, saturation: 45, label: 'node core' },
  native: { hue: 0, saturation: 0, label: 'native, V8 and GC' },
  other: { hue: 50, saturation: 80, label: 'other scripts' },
};
/** Packages take hues from cyan to violet, away from the other kinds'. */
const PACKAGE_HUES = { from: 180, span: 110 };
const LEGEND_LIGHTNESS = 62;

/**
 * A frame's fill: its origin's hue, a lightness of its function name's own, so that neighbours of one origin
 * stay apart; the same for the same function in every profile.
 */
export function frameFill(frame: CallFrame): string {
  const lightness = 54 + (hash(frame.functionName) % 17);
  return hsl(originOf(frame), lightness);
}

/** One entry per kind of origin in `frames`, each package its own; our code first, then node core, packages, native, other. */
export function legendOf(frames: readonly CallFrame[]): LegendEntry[] {
  const origins = new Map<string, Origin>();
  for (const frame of frames) {
    const origin = originOf(frame);
    const key = origin.kind === 'package' ? `package ${origin.name}` : origin.kind;
    origins.set(key, origin);
  }
  const rank = ['own', 'node', 'package', 'native', 'other'];
  return [...origins.values()]
    .sort((a, b) => rank.indexOf(a.kind) - rank.indexOf(b.kind) || (a.name < b.name ? -1 : 1))
    .map((o) => ({
      label: o.kind === 'package' ? o.name : KIND_COLOURS[o.kind].label,
      fill: hsl(o, LEGEND_LIGHTNESS),
    }));
}

function hsl(origin: Origin, lightness: number): string {
  const { hue, saturation } =
    origin.kind === 'package'
      ? { hue: PACKAGE_HUES.from + (hash(origin.name) % PACKAGE_HUES.span), saturation: 55 }
      : KIND_COLOURS[origin.kind];
  return `hsl(${hue},${saturation}%,${lightness}%)`;
}

/** FNV-1a: a stable number from a string. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}
