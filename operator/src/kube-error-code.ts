/** The HTTP status a @kubernetes/client-node call failed with (its errors carry it as `code`), if any. */
export function codeOf(err: unknown): number | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}
