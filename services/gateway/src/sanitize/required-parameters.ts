import { MissingParametersError, ParameterSpecError } from '../errors.js';
import { findSanitizer } from './sanitizers.js';
import type { Sanitizer } from './types.js';

/** A checked `name` or `name|sanitizer` spec. */
export interface ParameterSpec {
  /** The spec as written (`id|int`), quoted in the missing-parameter message. */
  readonly spec: string;
  readonly name: string;
  /** The registered sanitizer name (`text` when the spec names none). */
  readonly sanitizer: string;
  readonly sanitize: Sanitizer;
}

const DEFAULT_SANITIZER = 'text';

function syntaxProblem(spec: string): string {
  return `Parameter spec: '${spec}' is not 'name' or 'name|sanitizer'`;
}

/**
 * Checks specs of the form `name` (sanitized with `text`) or `name|sanitizer`; sanitizer names ignore
 * case, as PHP method names do. Call it when routes load. Throws a ParameterSpecError listing every
 * problem: unknown sanitizers, a name that is empty or holds whitespace, more than one `|`, a parameter
 * named twice.
 */
export function parseParameterSpecs(specs: readonly string[]): ParameterSpec[] {
  const problems: string[] = [];
  const unknown: string[] = [];
  const parsed: ParameterSpec[] = [];
  const seen = new Set<string>();
  for (const spec of specs) {
    const [name = '', sanitizerName = DEFAULT_SANITIZER, ...rest] = spec.split('|');
    if (name === '' || /\s/.test(name) || rest.length > 0) {
      problems.push(syntaxProblem(spec));
      continue;
    }
    if (seen.has(name)) problems.push(`Parameter spec: '${spec}' repeats parameter '${name}'`);
    seen.add(name);
    const found = findSanitizer(sanitizerName);
    if (found) {
      parsed.push(Object.freeze({ spec, name, sanitizer: found.name, sanitize: found.sanitize }));
    } else if (!unknown.includes(sanitizerName)) {
      unknown.push(sanitizerName);
      problems.push(`Sanitizer: '${sanitizerName}' is no valid sanitizer`);
    }
  }
  if (problems.length > 0) throw new ParameterSpecError(problems, unknown);
  return parsed;
}

function isSpecText(specs: readonly string[] | readonly ParameterSpec[]): specs is readonly string[] {
  return specs.every((s) => typeof s === 'string');
}

/**
 * RestApi's helper: returns a copy of `data` with every named parameter run through its sanitizer.
 * A parameter is missing when absent or null (`''` and `'0'` are present); MissingParametersError names
 * every missing one. Specs given as text are parsed first (ParameterSpecError). `data` is not modified.
 */
export function checkAndSanitizeRequiredParameters(
  data: Readonly<Record<string, unknown>>,
  specs: readonly string[] | readonly ParameterSpec[],
): Record<string, unknown> {
  const parsed = isSpecText(specs) ? parseParameterSpecs(specs) : specs;
  const missing = parsed.filter((p) => !Object.hasOwn(data, p.name) || data[p.name] == null);
  if (missing.length > 0) throw new MissingParametersError(missing);
  // entries, not assignment: a parameter named `__proto__` stays an own property
  return Object.fromEntries([
    ...Object.entries(data),
    ...parsed.map((p): [string, unknown] => [p.name, p.sanitize(data[p.name])]),
  ]);
}
