import type { CpuProfile } from '@portcullis/testing';
import { describe, expect, it } from 'vitest';
import { renderFlameGraph } from './flame-graph.js';

const OWN = new URL('../../services/demo/src/work.ts', import.meta.url).href;
const PACKAGE = new URL('../../node_modules/fastify/lib/route.js', import.meta.url).href;
const frame = (functionName: string, url = '', lineNumber = -1) => ({ functionName, url, lineNumber });

const START_US = 1_000_000;
const TICK_US = 1000;
/** Samples within the first window: 2,000 busy and 500 idle; then 100 of `late`. */
const FIRST_WINDOW = { fromUs: START_US, toUs: START_US + 2500 * TICK_US };
const LATE_WINDOW = { fromUs: FIRST_WINDOW.toUs + 1, toUs: START_US + 2600 * TICK_US };

/**
 * root: (program) 20, (idle) 500, (garbage collector) 180, late 100 (after the first window), main 100 self
 * calling <a&b> 600 and `work` twice (two V8 nodes of one function: 800, and 259 calling helper 1 and a long
 * name 40). 1 px per sample at width 2020.
 */
function profile(): CpuProfile {
  const nodes: CpuProfile['nodes'] = [
    { id: 1, callFrame: frame('(root)'), children: [2, 3, 4, 9, 10] },
    { id: 2, callFrame: frame('(program)') },
    { id: 3, callFrame: frame('(idle)') },
    { id: 4, callFrame: frame('main', 'file:///tmp/main.js', 0), children: [5, 6, 7] },
    { id: 5, callFrame: frame('work', OWN, 9) },
    { id: 6, callFrame: frame('<a&b>', 'file:///tmp/x&y.js', 4) },
    { id: 7, callFrame: frame('work', OWN, 9), children: [8, 11] },
    { id: 8, callFrame: frame('helper', 'node:internal/helper', 3) },
    { id: 9, callFrame: frame('(garbage collector)') },
    { id: 10, callFrame: frame('late', OWN, 20) },
    { id: 11, callFrame: frame('aVeryLongFunctionNameIndeed', PACKAGE, 7) },
  ];
  const counts: Array<[number, number]> = [
    [2, 20],
    [3, 500],
    [9, 180],
    [4, 100],
    [5, 800],
    [6, 600],
    [7, 259],
    [8, 1],
    [11, 40],
    [10, 100],
  ];
  const samples = counts.flatMap(([id, n]) => Array.from({ length: n }, () => id));
  return {
    nodes,
    startTime: START_US,
    endTime: START_US + samples.length * TICK_US,
    samples,
    timeDeltas: samples.map(() => TICK_US),
  };
}

interface DrawnFrame {
  x: number;
  y: number;
  width: number;
  label: string | undefined;
}

/** Each frame drawn, by the start of its tooltip (up to the colon). */
function framesOf(svg: string): Map<string, DrawnFrame> {
  const pattern =
    /<g><title>([^<]*)<\/title><rect x="([\d.]+)" y="(\d+)" width="([\d.]+)"[^>]*\/>(?:<text[^>]*>([^<]*)<\/text>)?<\/g>/g;
  return new Map(
    [...svg.matchAll(pattern)].map(([, title, x, y, width, label]) => [
      title!.slice(0, title!.indexOf(':')),
      { x: Number(x), y: Number(y), width: Number(width), label },
    ]),
  );
}

const legendOf = (svg: string): string[] =>
  [...svg.matchAll(/height="10" fill="[^"]+"\/><text[^>]*>([^<]*)<\/text>/g)].map(([, label]) => label!);

const render = (window = FIRST_WINDOW, p = profile()): string =>
  renderFlameGraph(p, { window, title: 'before <&> after', width: 2020 });

describe('renderFlameGraph', () => {
  it('draws each frame as wide as its share of busy samples, children in name order, the root at the bottom', () => {
    const frames = framesOf(render());
    expect(Object.fromEntries(frames)).toEqual({
      all: { x: 10, y: 108, width: 2000, label: 'all' },
      '(garbage collector)': { x: 10, y: 92, width: 180, label: '(garbage collector)' },
      'main /tmp/main.js': { x: 190, y: 92, width: 1800, label: 'main' },
      '&#60;a&#38;b&#62; /tmp/x&#38;y.js': { x: 190, y: 76, width: 600, label: '&#60;a&#38;b&#62;' },
      'work services/demo/src/work.ts': { x: 790, y: 76, width: 1100, label: 'work' },
      'aVeryLongFunctionNameIndeed fastify/lib/route.js': { x: 790, y: 60, width: 40, label: 'aVe..' },
    });
  });

  it('states the shares in the tooltips', () => {
    const svg = render();
    expect(svg).toContain(
      '<title>work services/demo/src/work.ts: 55.00% of busy time (1100 samples), services/demo</title>',
    );
    expect(svg).toContain('<title>all: 100.00% of busy time (2000 samples)</title>');
  });

  it('leaves out idle and (program), stating their shares', () => {
    const svg = render();
    expect(svg).not.toMatch(/<title>\((idle|program)\)/);
    expect(svg).toContain('2000 busy samples in the window · 20.0% idle');
    expect(svg).toContain('(program) 1.0%, not drawn');
  });

  it('drops frames under 0.1% of busy samples, and their kind from the legend', () => {
    const svg = render();
    expect(svg).not.toContain('helper');
    expect(legendOf(svg)).toEqual(['our code', 'fastify', 'native, V8 and GC', 'other scripts']);
  });

  it('reads only the samples within the window', () => {
    const frames = framesOf(render(LATE_WINDOW));
    expect([...frames.keys()]).toEqual(['all', 'late services/demo/src/work.ts']);
    expect(frames.get('late services/demo/src/work.ts')).toMatchObject({ x: 10, width: 2000 });
    expect(render(LATE_WINDOW)).toContain('100 busy samples in the window · 0.0% idle');
  });

  it('reads every sample when none falls in the window', () => {
    const svg = render({ fromUs: 0, toUs: 1 });
    expect(svg).toContain('no sample in the window: the whole profile, 2100 busy samples');
    expect(framesOf(svg).get('late services/demo/src/work.ts')).toMatchObject({ width: 95.24 });
  });

  it('escapes the title, labels and urls', () => {
    const svg = render();
    expect(svg).toContain('>before &#60;&#38;&#62; after</text>');
    expect(svg).not.toContain('<a&b>');
    expect(svg.replace(/&#\d+;/g, '')).not.toMatch(/&|<(?![/a-z])/);
  });

  it('renders the same whatever the order of the nodes and their children', () => {
    const shuffled = profile();
    shuffled.nodes.reverse();
    for (const node of shuffled.nodes) node.children?.reverse();
    expect(render(FIRST_WINDOW, shuffled)).toBe(render());
  });
});
