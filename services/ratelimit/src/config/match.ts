import type { Entry } from '../types.js';
import { childKey, type RuleLevel, type RuleNode } from './rule-set.js';

/**
 * The rule a request descriptor lands on, or undefined when none does. At each level an exact key+value
 * rule wins, then the first wildcard rule (in configuration order) whose pattern matches the value, then a
 * key-only rule; the rule counts only when the request ends at its depth.
 */
export function matchRule(root: RuleLevel, entries: readonly Entry[]): RuleNode | undefined {
  let level = root;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    if (!entry) return undefined;
    const node =
      (entry.value === ''
        ? undefined
        : (level.children.get(childKey(entry.key, entry.value)) ?? matchWildcard(level, entry))) ??
      level.children.get(childKey(entry.key, ''));
    if (!node) return undefined;
    if (i === entries.length - 1) return node;
    if (node.children.size === 0) return undefined;
    level = node;
  }
  return undefined;
}

function matchWildcard(level: RuleLevel, entry: Entry): RuleNode | undefined {
  for (const w of level.wildcards) if (w.key === entry.key && w.matches(entry.value)) return w.node;
  return undefined;
}

/** The rules from the top of the domain down to `node`. */
function pathTo(node: RuleNode): RuleNode[] {
  const path: RuleNode[] = [];
  for (let n: RuleNode | undefined = node; n; n = n.parent) path.push(n);
  return path.reverse();
}

/**
 * The statistics name of a match whose name depends on the request (`detailed_metric` on the rule,
 * `value_to_metric` on a level): per level the `share_threshold` pattern; else, under `detailed_metric`, the
 * request's `key_value`, an empty value too (`k_`, as upstream) unless a `share_threshold` level is on the
 * path (upstream then writes `k`); else, under `value_to_metric`, the request's `key_value` when it has a
 * value; else the rule's own `key` or `key_value`.
 */
export function requestStatKey(node: RuleNode, entries: readonly Entry[]): string {
  const path = pathTo(node);
  const sharing = path.some((n) => n.shareThreshold);
  return path
    .map((n, i) => {
      const e = entries[i];
      const own = n.value === '' ? n.key : `${n.key}_${n.value}`;
      if (!e || n.shareThreshold) return own;
      if (node.detailedMetric) return sharing && e.value === '' ? e.key : `${e.key}_${e.value}`;
      return n.valueToMetric && e.value !== '' ? `${e.key}_${e.value}` : own;
    })
    .join('.');
}

/** The request's entries with each `share_threshold` level's value replaced by its pattern: one counter for all. */
export function sharedCounterEntries(node: RuleNode, entries: readonly Entry[]): Entry[] {
  return pathTo(node).map((n, i) => {
    const e = entries[i] ?? { key: n.key, value: '' };
    return n.shareThreshold ? { key: e.key, value: n.value } : e;
  });
}
