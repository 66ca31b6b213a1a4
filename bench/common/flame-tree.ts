import type { CpuProfile } from '@portcullis/testing';
import { type CallFrame, samplesInWindow, type WindowUs } from './cpu-profile.js';

export interface FlameNode {
  frame: CallFrame;
  /** Samples in this function or what it called, on this stack. */
  samples: number;
  /** By function name, then url and line. */
  children: FlameNode[];
}

export interface FlameTree {
  /** False when no sample fell in the window and the whole profile was read. */
  windowed: boolean;
  /** Every sample read, idle included. */
  allSamples: number;
  idleSamples: number;
  /** `(program)`: busy in V8 outside any JavaScript function; busy time, but not in the tree. */
  programSamples: number;
  /** The profile's root, whose `samples` are the busy ones (all but idle, `(program)` included). */
  root: FlameNode;
}

interface Merging {
  frame: CallFrame;
  self: number;
  children: Map<string, Merging>;
}

/**
 * The samples within `window` (all when none fall in it, as `summarizeCpuProfile` reads them) as one tree of
 * stacks from the root up, the nodes of a function (name, url, line) under the same caller merged, without
 * `(idle)` and `(program)`.
 */
export function buildFlameTree(profile: CpuProfile, window: WindowUs): FlameTree {
  const { windowed, samples } = samplesInWindow(profile, window);
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const hits = new Map<number, number>();
  for (const id of samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  const count = (name: string): number =>
    samples.filter((id) => nodes.get(id)?.callFrame.functionName === name).length;

  const called = new Set(profile.nodes.flatMap((n) => n.children ?? []));
  const top = profile.nodes.find((n) => !called.has(n.id));
  if (!top) throw new Error('the profile has no root node: every node is some node’s child');
  const root: Merging = { frame: top.callFrame, self: 0, children: new Map() };
  const merge = (into: Merging, id: number): void => {
    const node = nodes.get(id);
    if (!node) return;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)' || functionName === '(program)') return;
    const key = `${functionName}\n${url}\n${lineNumber}`;
    let merged = into.children.get(key);
    if (!merged) into.children.set(key, (merged = { frame: node.callFrame, self: 0, children: new Map() }));
    merged.self += hits.get(id) ?? 0;
    for (const child of node.children ?? []) merge(merged, child);
  };
  root.self = hits.get(top.id) ?? 0;
  for (const child of top.children ?? []) merge(root, child);

  const idleSamples = count('(idle)');
  return {
    windowed,
    allSamples: samples.length,
    idleSamples,
    programSamples: count('(program)'),
    root: { ...settle(root), samples: samples.length - idleSamples },
  };
}

function settle(m: Merging): FlameNode {
  const children = [...m.children.values()].map(settle).sort((a, b) => compareFrames(a.frame, b.frame));
  return { frame: m.frame, samples: children.reduce((sum, c) => sum + c.samples, m.self), children };
}

/** Code-unit order, not the locale's, so that the same profile renders the same everywhere. */
function compareFrames(a: CallFrame, b: CallFrame): number {
  const order = (x: string | number, y: string | number): number => (x < y ? -1 : x > y ? 1 : 0);
  return order(a.functionName, b.functionName) || order(a.url, b.url) || order(a.lineNumber, b.lineNumber);
}
