import { isJsonObject } from './types.js';

/**
 * The "simple JSONPath" subset that CRD printer columns allow: `.a.b`, `['a.b']`, `[0]`, `[*]` and
 * filters such as `[?(@.type=="Ready")]` with `==`, `!=` or a bare existence test.
 */

type Step =
  | { kind: 'field'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'all' }
  | { kind: 'filter'; path: Step[]; op: '==' | '!=' | 'exists'; literal: unknown };

export function parseJsonPath(expression: string): Step[] {
  let text = expression.trim();
  if (text.startsWith('{') && text.endsWith('}')) text = text.slice(1, -1);
  if (text.startsWith('$')) text = text.slice(1);
  const steps: Step[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '.') {
      const m = /^[A-Za-z0-9_$-]+/.exec(text.slice(i + 1));
      if (!m) throw new Error(`unexpected path string, expected a field name after "." in ${expression}`);
      steps.push({ kind: 'field', name: m[0] });
      i += 1 + m[0].length;
    } else if (c === '[') {
      const end = findClosingBracket(text, i);
      steps.push(parseBracket(text.slice(i + 1, end), expression));
      i = end + 1;
    } else {
      throw new Error(`unrecognized character in ${expression} at ${i}`);
    }
  }
  return steps;
}

function findClosingBracket(text: string, open: number): number {
  let quote: string | undefined;
  for (let i = open + 1; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === ']') return i;
  }
  throw new Error(`unclosed [ in ${text}`);
}

function parseBracket(inner: string, expression: string): Step {
  const body = inner.trim();
  if (body === '*') return { kind: 'all' };
  if (/^-?\d+$/.test(body)) return { kind: 'index', index: Number(body) };
  const quoted = /^(['"])(.*)\1$/.exec(body);
  if (quoted) return { kind: 'field', name: quoted[2] ?? '' };
  const filter = /^\?\(\s*@((?:\.[A-Za-z0-9_$-]+|\[[^\]]*\])*)\s*(?:(==|!=)\s*(.+?))?\s*\)$/.exec(body);
  if (filter) {
    const [, path = '', op, literal] = filter;
    return {
      kind: 'filter',
      path: parseJsonPath(path),
      op: op === '==' || op === '!=' ? op : 'exists',
      literal: literal === undefined ? undefined : parseLiteral(literal),
    };
  }
  throw new Error(`unsupported JSONPath element [${inner}] in ${expression}`);
}

function parseLiteral(text: string): unknown {
  const quoted = /^(['"])(.*)\1$/.exec(text);
  if (quoted) return quoted[2];
  if (text === 'true' || text === 'false') return text === 'true';
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  return text;
}

/** Every value the path selects, in document order. */
export function evaluateJsonPath(steps: Step[], root: unknown): unknown[] {
  let nodes: unknown[] = [root];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const node of nodes) applyStep(step, node, next);
    nodes = next;
  }
  return nodes;
}

function applyStep(step: Step, node: unknown, out: unknown[]): void {
  switch (step.kind) {
    case 'field':
      if (isJsonObject(node) && Object.hasOwn(node, step.name)) out.push(node[step.name]);
      return;
    case 'index':
      if (Array.isArray(node)) {
        const value: unknown = node.at(step.index);
        if (value !== undefined) out.push(value);
      }
      return;
    case 'all':
      if (Array.isArray(node)) out.push(...(node as unknown[]));
      else if (isJsonObject(node)) out.push(...Object.values(node));
      return;
    case 'filter': {
      const items: unknown[] = Array.isArray(node) ? node : isJsonObject(node) ? Object.values(node) : [];
      for (const item of items) if (matchesFilter(step, item)) out.push(item);
      return;
    }
    default: {
      const _exhaustive: never = step;
      return _exhaustive;
    }
  }
}

function matchesFilter(step: Extract<Step, { kind: 'filter' }>, item: unknown): boolean {
  const found = evaluateJsonPath(step.path, item);
  if (step.op === 'exists') return found.length > 0;
  const equal = found.length > 0 && found[0] === step.literal;
  return step.op === '==' ? equal : !equal;
}
