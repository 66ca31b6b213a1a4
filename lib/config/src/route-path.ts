/**
 * Route paths in the original router's syntax: literal text, `{name}` (one segment), `{name:regex}` and an
 * optional tail in `[...]`, which may nest (`users[/{id}[/{field}]]`) and only closes the path.
 */
export interface CompiledRoutePath {
  /** Matches a whole path relative to the route's base, without leading or trailing `/`. */
  regex: RegExp;
  /** Parameter names in capture-group order. */
  params: string[];
  /** True when the path has no parameters and no optional part. */
  isStatic: boolean;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** Compiles `path`, or returns the problems found (each a complete sentence). */
export function compileRoutePath(path: string): CompiledRoutePath | { problems: string[] } {
  const problems: string[] = [];
  const params: string[] = [];
  let source = '';
  let optionalDepth = 0;
  let closedOptional = false;
  for (let i = 0; i < path.length; i++) {
    const c = path.charAt(i);
    if (closedOptional && c !== ']') {
      problems.push(`optional part "[...]" must end the path (at offset ${i})`);
      break;
    }
    if (c === '{') {
      const end = closingBrace(path, i);
      if (end < 0) {
        problems.push(`unclosed "{" at offset ${i}`);
        break;
      }
      const inner = path.slice(i + 1, end);
      const colon = inner.indexOf(':');
      const name = colon < 0 ? inner : inner.slice(0, colon);
      const pattern = colon < 0 ? '[^/]+' : inner.slice(colon + 1);
      if (!NAME.test(name)) problems.push(`parameter name "${name}" is not a valid name`);
      else if (params.includes(name)) problems.push(`parameter "${name}" appears twice`);
      const regexProblem = checkRegex(pattern);
      if (regexProblem) problems.push(`parameter "${name}": ${regexProblem}`);
      params.push(name);
      source += `(${pattern})`;
      i = end;
    } else if (c === '[') {
      optionalDepth++;
      source += '(?:';
    } else if (c === ']') {
      if (optionalDepth === 0) {
        problems.push(`unbalanced "]" at offset ${i}`);
        break;
      }
      optionalDepth--;
      closedOptional = true;
      source += ')?';
    } else if (c === '}') {
      problems.push(`unbalanced "}" at offset ${i}`);
      break;
    } else {
      source += c.replace(/[.*+?^$|()\\]/g, '\\$&');
    }
  }
  if (optionalDepth > 0) problems.push('unclosed "["');
  if (problems.length > 0) return { problems };
  return {
    // `s`: a decoded path may hold %0A or %E2%80%A8, which `.` would otherwise stop at
    regex: new RegExp(`^${source}$`, 'su'),
    params,
    isStatic: params.length === 0 && !path.includes('['),
  };
}

/** One parameter of a path template: its name, and its pattern when the path declares one (`{id:\d+}`). */
export interface RoutePathParam {
  name: string;
  pattern: string | undefined;
}

/**
 * The plain paths a valid route path stands for, shortest first: one per optional part, parameters written
 * `{name}` (`users[/{id:\d+}]` is `users` and `users/{id}`), as OpenAPI path templates spell them. Call it
 * on a path `compileRoutePath` accepted.
 */
export function routePathTemplates(path: string): Array<{ template: string; params: RoutePathParam[] }> {
  const out: Array<{ template: string; params: RoutePathParam[] }> = [];
  const params: RoutePathParam[] = [];
  let template = '';
  for (let i = 0; i < path.length; i++) {
    const c = path.charAt(i);
    if (c === '{') {
      const end = closingBrace(path, i);
      const inner = path.slice(i + 1, end);
      const colon = inner.indexOf(':');
      const name = colon < 0 ? inner : inner.slice(0, colon);
      params.push({ name, pattern: colon < 0 ? undefined : inner.slice(colon + 1) });
      template += `{${name}}`;
      i = end;
    } else if (c === '[') {
      out.push({ template, params: [...params] });
    } else if (c !== ']') {
      template += c;
    }
  }
  out.push({ template, params });
  return out;
}

function closingBrace(path: string, open: number): number {
  let depth = 0;
  for (let i = open; i < path.length; i++) {
    if (path[i] === '\\') i++;
    else if (path[i] === '{') depth++;
    else if (path[i] === '}' && --depth === 0) return i;
  }
  return -1;
}

function checkRegex(pattern: string): string | undefined {
  try {
    new RegExp(pattern, 'u');
  } catch (err: unknown) {
    return `invalid regular expression: ${(err as Error).message}`;
  }
  // A capturing group would shift the parameters' group numbers.
  if (/(^|[^\\])\((?!\?)/.test(pattern)) return 'capturing groups are not allowed; use (?:...)';
  return undefined;
}
