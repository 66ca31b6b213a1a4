/** `[name, value]` pairs from Node's flat `rawHeaders`, in the order and case they were sent. */
export function toHeaderPairs(rawHeaders: readonly string[]): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2)
    pairs.push([rawHeaders[i] ?? '', rawHeaders[i + 1] ?? '']);
  return pairs;
}

/** The first value of a header, its name compared case-insensitively. */
export function findHeader(rawHeaders: readonly string[], name: string): string | undefined {
  const wanted = name.toLowerCase();
  return toHeaderPairs(rawHeaders).find(([n]) => n.toLowerCase() === wanted)?.[1];
}
