/** Folds below this depth start closed, so a huge document opens fast. */
const OPEN_DEPTH = 2;

/**
 * A parsed JSON body as a foldable tree. Every key and value is a text node: nothing captured is ever
 * parsed as markup.
 */
export function JsonTree({ value }: { value: unknown }) {
  return (
    <div class="json-tree">
      <JsonNode value={value} depth={0} />
    </div>
  );
}

function JsonNode({ value, depth, name }: { value: unknown; depth: number; name?: string }) {
  const key = name === undefined ? null : <span class="json-key">{JSON.stringify(name)}: </span>;
  if (value === null || typeof value !== 'object') {
    return (
      <div class="json-leaf">
        {key}
        <span class={`json-${value === null ? 'null' : typeof value}`}>{JSON.stringify(value)}</span>
      </div>
    );
  }
  const entries: Array<[string | undefined, unknown]> = Array.isArray(value)
    ? value.map((v) => [undefined, v])
    : Object.entries(value);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) {
    return (
      <div class="json-leaf">
        {key}
        {open}
        {close}
      </div>
    );
  }
  return (
    <details class="json-node" open={depth < OPEN_DEPTH}>
      <summary>
        {key}
        {open}
        <span class="json-count">
          {entries.length} {Array.isArray(value) ? 'items' : 'keys'}
        </span>
      </summary>
      <div class="json-children">
        {entries.map(([k, v], i) => (
          <JsonNode key={k ?? i} value={v} depth={depth + 1} {...(k === undefined ? {} : { name: k })} />
        ))}
      </div>
      <div>{close}</div>
    </details>
  );
}
