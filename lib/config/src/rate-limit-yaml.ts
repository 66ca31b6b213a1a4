import { LineCounter, isAlias, isMap, isNode, isScalar, isSeq, parseAllDocuments, type Document } from 'yaml';
import { ConfigError } from './errors.js';
import { checkRateLimitConfig } from './rate-limit-parse.js';
import { formatProblem, type ConfigPath } from './reader.js';
import type { RateLimitConfig } from './rate-limit-types.js';

const NULL_WORDS = new Set(['', '~', 'null', 'Null', 'NULL']);
/** Aliases expanded per file at most: a few anchors shared by many rules are fine, a "billion laughs" is not. */
const MAX_ALIAS_EXPANSIONS = 10_000;

/**
 * Parses and validates one rate-limit YAML file. Problems read `<source>:<line>: <path>: <message>`; all of
 * them are reported at once.
 */
export function parseRateLimitYaml(source: string, text: string): RateLimitConfig {
  const lineCounter = new LineCounter();
  // Without a schema every scalar stays text, so `value: 010` or `value: on` keep their spelling as
  // upstream's YAML reader keeps it for string fields; numbers and booleans are read by the validator.
  const docs = parseAllDocuments(text, { schema: 'failsafe', lineCounter, uniqueKeys: true });
  if (!Array.isArray(docs)) return parseDoc(source, undefined, lineCounter);
  const syntax = docs.flatMap((d) => d.errors);
  if (syntax.length > 0) {
    throw new ConfigError(
      syntax.map(
        (e) =>
          `${source}:${e.linePos?.[0].line ?? 1}: invalid YAML: ${(e.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:$/, '')}`,
      ),
    );
  }
  const [first, ...more] = docs.filter((d) => d.contents !== null);
  if (more.length > 0) {
    throw new ConfigError([
      `${source}: holds ${more.length + 1} YAML documents; one file holds one configuration`,
    ]);
  }
  return parseDoc(source, first, lineCounter);
}

function parseDoc(source: string, doc: Document | undefined, lineCounter: LineCounter): RateLimitConfig {
  const result = checkRateLimitConfig(doc?.contents ? toPlain(source, doc) : null);
  if ('problems' in result) {
    const located = result.problems.map((p) => ({ p, line: lineOf(doc, p.path, lineCounter) }));
    located.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
    throw new ConfigError(
      located.map(({ p, line }) => formatProblem(line ? `${source}:${line}` : source, p)),
    );
  }
  return { source, ...result.config };
}

/**
 * The line a problem points at: the key of the last path segment found, so an unknown key or a missing
 * field points at the line that names it or its parent.
 */
function lineOf(doc: Document | undefined, path: ConfigPath, lineCounter: LineCounter): number | undefined {
  let node: unknown = doc?.contents;
  let offset = isNode(node) ? node.range?.[0] : undefined;
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(segment));
      if (!pair) break;
      offset = isNode(pair.key) ? (pair.key.range?.[0] ?? offset) : offset;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      node = node.items[segment];
      offset = isNode(node) ? (node.range?.[0] ?? offset) : offset;
    } else break;
  }
  return offset === undefined ? undefined : lineCounter.linePos(offset).line;
}

/**
 * The document as plain data. Aliases (`*name`) stand for their anchored node and merge keys (`<<: *base`)
 * merge mappings, as upstream's YAML reader does; a recursive alias, or more than MAX_ALIAS_EXPANSIONS, is
 * refused. Under `metadata` (which
 * goes out as a Struct) plain scalars become numbers and booleans.
 */
function toPlain(source: string, doc: Document): unknown {
  let expansions = 0;
  const expanding = new Set<unknown>();
  const walk = (node: unknown, typed: boolean): unknown => {
    if (isAlias(node)) {
      const target = node.resolve(doc);
      if (expanding.has(target) || ++expansions > MAX_ALIAS_EXPANSIONS)
        throw new ConfigError([
          `${source}: YAML alias *${node.source} expands recursively or too many times`,
        ]);
      expanding.add(target);
      const value = walk(target, typed);
      expanding.delete(target);
      return value;
    }
    if (isScalar(node)) {
      const text = String(node.value);
      if (node.type !== 'PLAIN') return text;
      if (NULL_WORDS.has(text)) return null;
      return typed ? typedScalar(text) : text;
    }
    if (isSeq(node)) return node.items.map((item) => walk(item, typed));
    if (isMap(node)) {
      const out: Record<string, unknown> = {};
      const merged: unknown[] = [];
      for (const pair of node.items) {
        const key = String(isScalar(pair.key) ? pair.key.value : pair.key);
        if (key === '<<' && isScalar(pair.key) && pair.key.type === 'PLAIN') {
          const sources = isSeq(pair.value) ? pair.value.items : [pair.value];
          merged.push(...sources.map((m) => walk(m, typed)));
        } else out[key] = walk(pair.value, typed || key === 'metadata');
      }
      // keys of the mapping itself win over merged ones, and an earlier merged mapping over a later one
      for (const m of merged) {
        if (m === null || typeof m !== 'object' || Array.isArray(m))
          throw new ConfigError([`${source}: YAML merge key '<<' takes a mapping or a list of mappings`]);
        for (const [k, v] of Object.entries(m)) if (!(k in out)) out[k] = v;
      }
      return out;
    }
    return null;
  };
  return walk(doc.contents, false);
}

const YAML_NUMBER = /^[-+]?(\d+(?:\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

function typedScalar(text: string): string | number | boolean {
  if (text === 'true' || text === 'True' || text === 'TRUE') return true;
  if (text === 'false' || text === 'False' || text === 'FALSE') return false;
  return YAML_NUMBER.test(text) ? Number(text) : text;
}
