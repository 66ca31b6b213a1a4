import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

// A real kube-apiserver costs every CEL rule of a CRD before it accepts it: the rule's cost for the largest
// inputs its schema allows (strings by maxLength, lists by maxItems) times the most times it can run (the
// product of the maxItems of every list above it), at most 10^7 per rule and 10^8 for the CRD. The test API
// server does not estimate costs, so this guards what makes them small: few evaluations, bounded inputs.

const MAX_EVALUATIONS = 1024;

interface Node {
  type?: string;
  properties?: Record<string, Node>;
  items?: Node;
  additionalProperties?: Node | boolean;
  maxItems?: number;
  maxProperties?: number;
  maxLength?: number;
  'x-kubernetes-validations'?: Array<{ rule: string }>;
}

interface RuleSite {
  path: string;
  evaluations: number;
  node: Node;
  rule: string;
}

function ruleSites(node: Node, path: string, evaluations: number, out: RuleSite[]): RuleSite[] {
  for (const { rule } of node['x-kubernetes-validations'] ?? []) out.push({ path, evaluations, node, rule });
  for (const [name, child] of Object.entries(node.properties ?? {}))
    ruleSites(child, `${path}.${name}`, evaluations, out);
  if (node.items) ruleSites(node.items, `${path}[]`, evaluations * (node.maxItems ?? Infinity), out);
  if (typeof node.additionalProperties === 'object')
    ruleSites(node.additionalProperties, `${path}{}`, evaluations * (node.maxProperties ?? Infinity), out);
  return out;
}

/** What a rule reads of `self` beyond `has(self.x)`, which costs the same whatever the field holds. */
function fieldsRead(rule: string): string[] {
  return [
    ...new Set([...rule.replace(/has\(self\.\w+\)/g, '').matchAll(/self\.(\w+)/g)].map((m) => m[1] ?? '')),
  ];
}

/** Problems with the inputs a rule reads: strings without maxLength, lists without maxItems (or with such strings). */
function unbounded(node: Node, name: string): string[] {
  if (node.type === 'string') return node.maxLength === undefined ? [`${name}: no maxLength`] : [];
  if (node.type === 'array') {
    if (node.maxItems === undefined) return [`${name}: no maxItems`];
    return node.items ? unbounded(node.items, `${name}[]`) : [];
  }
  return Object.entries(node.properties ?? {}).flatMap(([k, child]) => unbounded(child, `${name}.${k}`));
}

describe('CEL rules of the CRDs stay within the API server cost budget', () => {
  it.each(['ratelimitconfigs', 'apiroutes', 'inboxendpoints'])('%s', async (plural) => {
    const crd = parse(await readFile(join(import.meta.dirname, '..', 'crds', `${plural}.yaml`), 'utf8')) as {
      spec: { versions: Array<{ schema: { openAPIV3Schema: Node } }> };
    };
    const problems: string[] = [];
    for (const version of crd.spec.versions) {
      for (const site of ruleSites(version.schema.openAPIV3Schema, '', 1, [])) {
        if (site.evaluations > MAX_EVALUATIONS)
          problems.push(`${site.path}: "${site.rule}" may run ${site.evaluations} times`);
        for (const field of fieldsRead(site.rule)) {
          const read = field === 'oldSelf' ? site.node : site.node.properties?.[field];
          if (read)
            problems.push(
              ...unbounded(read, `${site.path}.${field}`).map((p) => `"${site.rule}" reads ${p}`),
            );
        }
        // `self == oldSelf` and the like read the node itself
        if (/\bself\b(?!\.)/.test(site.rule)) problems.push(...unbounded(site.node, site.path || '.'));
      }
    }
    expect(problems).toEqual([]);
  });
});
