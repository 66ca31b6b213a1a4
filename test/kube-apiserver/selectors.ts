import { badRequest } from './errors.js';
import { isJsonObject, type KubeObject } from './types.js';

/** Label and field selectors, parsed as `k8s.io/apimachinery/pkg/labels` and `…/fields` do. */

type LabelOp = 'exists' | '!exists' | '=' | '!=' | 'in' | 'notin' | 'gt' | 'lt';

interface LabelRequirement {
  key: string;
  op: LabelOp;
  values: string[];
}

export type LabelSelector = LabelRequirement[];

const KEY = String.raw`[A-Za-z0-9][-A-Za-z0-9_./]*`;
const VALUE = String.raw`[-A-Za-z0-9_.]*`;
const SIMPLE = new RegExp(`^(!?)\\s*(${KEY})\\s*(?:(==|=|!=|>|<)\\s*(${VALUE}))?$`);
const SET = new RegExp(`^(${KEY})\\s+(in|notin)\\s*\\(([^)]*)\\)$`);

export function parseLabelSelector(text: string | null): LabelSelector {
  if (!text?.trim()) return [];
  return splitTopLevel(text).map((part) => parseRequirement(part.trim()));
}

function parseRequirement(part: string): LabelRequirement {
  const set = SET.exec(part);
  if (set) {
    const [, key = '', op = '', list = ''] = set;
    const values = list
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v !== '');
    if (!values.every((v) => new RegExp(`^${VALUE}$`).test(v))) throw selectorError(part);
    return { key, op: op === 'in' ? 'in' : 'notin', values };
  }
  const simple = SIMPLE.exec(part);
  if (!simple) throw selectorError(part);
  const [, bang = '', key = '', op, value = ''] = simple;
  if (bang && op) throw selectorError(part);
  if (!op) return { key, op: bang ? '!exists' : 'exists', values: [] };
  if (op === '>' || op === '<') {
    if (!/^-?\d+$/.test(value)) throw selectorError(part);
    return { key, op: op === '>' ? 'gt' : 'lt', values: [value] };
  }
  return { key, op: op === '!=' ? '!=' : '=', values: [value] };
}

function selectorError(part: string): Error {
  return badRequest(`unable to parse requirement: invalid label selector: "${part}"`);
}

/** Splits on commas outside `( … )`, so `a in (x,y),b` is two requirements. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

export function matchesLabels(selector: LabelSelector, labels: Record<string, string> | undefined): boolean {
  const have = labels ?? {};
  return selector.every((r) => {
    const present = Object.hasOwn(have, r.key);
    const value = have[r.key];
    switch (r.op) {
      case 'exists':
        return present;
      case '!exists':
        return !present;
      case '=':
        return present && value === r.values[0];
      case '!=':
        return !present || value !== r.values[0];
      case 'in':
        return present && r.values.includes(value ?? '');
      case 'notin':
        return !present || !r.values.includes(value ?? '');
      case 'gt':
      case 'lt': {
        if (!present || !/^-?\d+$/.test(value ?? '')) return false;
        const n = Number(value);
        const bound = Number(r.values[0]);
        return r.op === 'gt' ? n > bound : n < bound;
      }
      default: {
        const _exhaustive: never = r.op;
        return _exhaustive;
      }
    }
  });
}

interface FieldRequirement {
  path: string;
  negate: boolean;
  value: string;
}

export type FieldSelector = FieldRequirement[];

/**
 * Parses `metadata.name=a,metadata.namespace!=b`; `labels` maps each extra supported field label to a
 * dotted path in the stored object. Unknown labels are a 400, as on the real server.
 */
export function parseFieldSelector(text: string | null, labels: Record<string, string>): FieldSelector {
  if (!text?.trim()) return [];
  const known: Record<string, string> = {
    'metadata.name': 'metadata.name',
    'metadata.namespace': 'metadata.namespace',
    ...labels,
  };
  return text.split(',').map((part) => {
    const m = /^\s*([^!=\s]+)\s*(==|=|!=)\s*(.*?)\s*$/.exec(part);
    if (!m) throw badRequest(`invalid selector: '${text}'; can't understand '${part}'`);
    const [, label = '', op, value = ''] = m;
    const path = known[label];
    if (path === undefined) throw badRequest(`field label not supported: ${label}`);
    return { path, negate: op === '!=', value: value.replace(/\\(.)/g, '$1') };
  });
}

export function matchesFields(selector: FieldSelector, obj: KubeObject): boolean {
  return selector.every((r) => (fieldValue(obj, r.path) === r.value) !== r.negate);
}

function fieldValue(obj: KubeObject, path: string): string {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (!isJsonObject(cur)) return '';
    cur = cur[part];
  }
  if (cur === undefined || cur === null) return '';
  return typeof cur === 'string' ? cur : JSON.stringify(cur);
}
