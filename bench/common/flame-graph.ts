import type { CpuProfile } from '@portcullis/testing';
import { type CallFrame, labelOf, originOf, type WindowUs } from './cpu-profile.js';
import { frameFill, legendOf } from './flame-colours.js';
import { buildFlameTree, type FlameNode, type FlameTree } from './flame-tree.js';

const DEFAULT_WIDTH = 1200;
const PAD = 10;
const ROW = 16;
const FONT_PX = 11;
/** Advance of one monospace glyph, to truncate labels without measuring text. */
const CHAR_PX = FONT_PX * 0.6;
/** Frames below this share of busy samples are left out, with what they called. */
const MIN_SHARE = 0.001;
const GRAPH_TOP = 60;

interface Placed {
  node: FlameNode;
  /** Busy samples left of the frame. */
  offset: number;
  depth: number;
}

/**
 * A flame graph of the samples within `window` (all when none fall in it) as a standalone SVG with no
 * script, so that it shows as an image in a README: stacks from the root up, each frame as wide as its share
 * of busy samples, children in name order, `(idle)` and `(program)` stated in the subtitle instead.
 */
export function renderFlameGraph(
  profile: CpuProfile,
  o: { window: WindowUs; title: string; width?: number },
): string {
  const width = o.width ?? DEFAULT_WIDTH;
  const tree = buildFlameTree(profile, o.window);
  const busy = tree.root.samples;
  const placed = busy > 0 ? place(tree.root, busy) : [];
  const levels = placed.reduce((most, p) => Math.max(most, p.depth + 1), 0);
  const scale = (width - 2 * PAD) / Math.max(busy, 1);
  const frames = placed.map((p) => {
    const x = PAD + p.offset * scale;
    const y = GRAPH_TOP + (levels - 1 - p.depth) * ROW;
    return frameSvg(p.node, { x, y, width: p.node.samples * scale, busy, isRoot: p.depth === 0 });
  });
  const legend = legendSvg(
    placed.filter((p) => p.depth > 0).map((p) => p.node.frame),
    { y: GRAPH_TOP + levels * ROW + 12, width },
  );
  const height = legend.bottom + PAD;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="monospace" font-size="${FONT_PX}">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${num(width / 2)}" y="24" font-size="16" text-anchor="middle">${escapeXml(o.title)}</text>`,
    `<text x="${num(width / 2)}" y="44" fill="#555555" text-anchor="middle">${escapeXml(subtitle(tree))}</text>`,
    ...frames,
    ...legend.lines,
    '</svg>',
    '',
  ].join('\n');
}

/** The frames drawn, depth first; a frame too narrow to draw leaves its gap. */
function place(root: FlameNode, busy: number): Placed[] {
  const out: Placed[] = [];
  const visit = (node: FlameNode, offset: number, depth: number): void => {
    out.push({ node, offset, depth });
    let at = offset;
    for (const child of node.children) {
      if (child.samples / busy >= MIN_SHARE) visit(child, at, depth + 1);
      at += child.samples;
    }
  };
  visit(root, 0, 0);
  return out;
}

function subtitle(t: FlameTree): string {
  const busy = t.root.samples;
  const pct = (n: number, of: number): string => `${of > 0 ? ((n / of) * 100).toFixed(1) : '0.0'}%`;
  return [
    t.windowed
      ? `${busy} busy samples in the window`
      : `no sample in the window: the whole profile, ${busy} busy samples`,
    `${pct(t.idleSamples, t.allSamples)} idle (left out; widths are shares of busy time)`,
    `(program) ${pct(t.programSamples, busy)}, not drawn`,
    `frames under ${MIN_SHARE * 100}% left out`,
  ].join(' · ');
}

function frameSvg(
  node: FlameNode,
  at: { x: number; y: number; width: number; busy: number; isRoot: boolean },
): string {
  const share = `${((node.samples / at.busy) * 100).toFixed(2)}%`;
  const name = at.isRoot ? 'all' : node.frame.functionName || '(anonymous)';
  const tip = at.isRoot
    ? `all: ${share} of busy time (${samplesText(node.samples)})`
    : `${labelOf(node.frame)}: ${share} of busy time (${samplesText(node.samples)}), ${originOf(node.frame).name}`;
  const fill = at.isRoot ? 'hsl(0,0%,80%)' : frameFill(node.frame);
  const label = fitLabel(name, at.width);
  return (
    `<g><title>${escapeXml(tip)}</title>` +
    `<rect x="${num(at.x)}" y="${at.y}" width="${num(at.width)}" height="${ROW - 1}" fill="${fill}" stroke="#ffffff" stroke-width="0.5"/>` +
    (label ? `<text x="${num(at.x + 3)}" y="${at.y + ROW - 4}">${escapeXml(label)}</text>` : '') +
    '</g>'
  );
}

function samplesText(n: number): string {
  return n === 1 ? '1 sample' : `${n} samples`;
}

/** The name, cut to the frame's width with `..` when it does not fit; none when not even 3 characters do. */
function fitLabel(name: string, width: number): string {
  const fits = Math.floor((width - 6) / CHAR_PX);
  if (name.length <= fits) return name;
  return fits >= 3 ? `${name.slice(0, fits - 2)}..` : '';
}

/** Legend entries in rows, left to right, wrapped at the picture's width. */
function legendSvg(
  frames: readonly CallFrame[],
  at: { y: number; width: number },
): { lines: string[]; bottom: number } {
  const lines: string[] = [];
  let x = PAD;
  let y = at.y;
  for (const entry of legendOf(frames)) {
    const entryWidth = 14 + entry.label.length * CHAR_PX;
    if (x > PAD && x + entryWidth > at.width - PAD) {
      x = PAD;
      y += ROW;
    }
    lines.push(
      `<rect x="${num(x)}" y="${y}" width="10" height="10" fill="${entry.fill}"/>` +
        `<text x="${num(x + 14)}" y="${y + 9}">${escapeXml(entry.label)}</text>`,
    );
    x += entryWidth + 16;
  }
  return { lines, bottom: lines.length > 0 ? y + ROW : at.y };
}

function num(n: number): string {
  return String(Math.round(n * 100) / 100);
}

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
