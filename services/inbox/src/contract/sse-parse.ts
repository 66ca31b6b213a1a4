// Reads a Server-Sent Events body the way EventSource does, for clients that need what EventSource lacks
// (an Authorization header, control over reconnection): the CLI's `tail` and `forward`, and the web
// inspector. Only web-platform APIs, so both Node and the browser bundle use it.

export interface ParsedEvent {
  id: string | undefined;
  event: string;
  data: string;
}

/** The events of an SSE body; comments and `retry:` lines are dropped. */
export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ParsedEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, '\n');
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const e = parseBlock(block);
      if (e) yield e;
    }
  }
}

function parseBlock(block: string): ParsedEvent | undefined {
  let id: string | undefined;
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    const colon = line.indexOf(':');
    if (colon === 0) continue;
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') id = value;
    else if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  return data.length === 0 ? undefined : { id, event, data: data.join('\n') };
}
