import type { Entry } from '../types.js';
import { childKey, type RuleNode } from './rule-set.js';

/**
 * The rule a request descriptor lands on, or undefined when none does. At each level an exact key+value
 * rule wins over a key-only rule; the rule counts only when the request ends at its depth.
 */
export function matchRule(
  root: ReadonlyMap<string, RuleNode>,
  entries: readonly Entry[],
): RuleNode | undefined {
  let nodes = root;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    if (!entry) return undefined;
    const node =
      (entry.value === '' ? undefined : nodes.get(childKey(entry.key, entry.value))) ??
      nodes.get(childKey(entry.key, ''));
    if (!node) return undefined;
    if (i === entries.length - 1) return node;
    if (node.children.size === 0) return undefined;
    nodes = node.children;
  }
  return undefined;
}
