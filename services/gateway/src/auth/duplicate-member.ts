// RFC 7519 §4 lets a JWT parser either refuse duplicate claim names or take the last one. We refuse: a
// token whose `sub` reads one way here and another way in a first-wins parser behind us is an attack.

/** The end of the JSON string that opens at `start` (the index of its closing quote). */
function stringEnd(json: string, start: number): number {
  let i = start + 1;
  while (i < json.length && json[i] !== '"') i += json[i] === '\\' ? 2 : 1;
  return i;
}

/**
 * The first member name that appears twice in one object of `json` (escapes decoded, so `"s\u0075b"` is
 * `sub`), or undefined. For text `JSON.parse` has already taken; one pass, linear in its length.
 */
export function findDuplicateMember(json: string): string | undefined {
  // one entry per open object (its names so far) or array (undefined)
  const open: Array<Set<string> | undefined> = [];
  let nameNext = false;
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (c === '"') {
      const end = stringEnd(json, i);
      const names = open.at(-1);
      if (nameNext && names) {
        const name = JSON.parse(json.slice(i, end + 1)) as string;
        if (names.has(name)) return name;
        names.add(name);
      }
      nameNext = false;
      i = end;
    } else if (c === '{') {
      open.push(new Set());
      nameNext = true;
    } else if (c === '[') {
      open.push(undefined);
    } else if (c === '}' || c === ']') {
      open.pop();
    } else if (c === ',') {
      nameNext = open.at(-1) !== undefined;
    }
  }
  return undefined;
}

/** The first duplicate member name in a compact JWS's header or payload, or undefined. */
export function findDuplicateJwsMember(token: string): string | undefined {
  for (const segment of token.split('.').slice(0, 2)) {
    const name = findDuplicateMember(Buffer.from(segment, 'base64url').toString());
    if (name !== undefined) return name;
  }
  return undefined;
}
