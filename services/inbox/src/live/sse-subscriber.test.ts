import { describe, expect, it } from 'vitest';
import type { Capture } from '../contract/capture-records.js';
import { formatSseEvent } from './sse-format.js';
import { SseSubscriber, type SseSink } from './sse-subscriber.js';

const capture = (id: string): Capture => ({
  id,
  receivedAt: 0,
  method: 'POST',
  url: '/',
  nestedPath: '',
  httpVersion: '1.1',
  rawHeaders: [],
  remoteAddress: '',
  body: Buffer.alloc(0),
  bodySha256: '',
});

/** A sink whose socket is "full" until `drain()`; it records what was written. */
function createSink(o: { full?: boolean } = {}) {
  const chunks: string[] = [];
  let full = o.full ?? false;
  let release = (): void => undefined;
  const sink: SseSink & { ended: boolean } = {
    ended: false,
    write: (chunk) => {
      chunks.push(chunk);
      return !full;
    },
    drained: () => new Promise<void>((resolve) => (release = resolve)),
    end: () => (sink.ended = true),
  };
  return {
    sink,
    chunks,
    ids: () => chunks.flatMap((c) => /^id: (.+)$/m.exec(c)?.[1] ?? []),
    events: () => chunks.flatMap((c) => /^event: (.+)$/m.exec(c)?.[1] ?? []),
    drain: () => {
      full = false;
      release();
    },
  };
}

const options = (sink: SseSink, extra: { maxPendingEvents?: number; stored?: Capture[] } = {}) => {
  const stored = extra.stored ?? [];
  let closed = 0;
  return {
    closed: () => closed,
    o: {
      sink,
      endpointId: 'ep',
      maxPendingEvents: extra.maxPendingEvents ?? 10,
      heartbeatMs: 60_000,
      formatRequest: (c: Capture) => formatSseEvent({ id: c.id, event: 'request', data: { id: c.id } }),
      readAfter: (afterId: string) => {
        const [ms = 0] = afterId.split('-').map(Number);
        return Promise.resolve(stored.filter((c) => Number(c.id.split('-')[0]) > ms).slice(0, 2));
      },
      onClose: () => void (closed += 1),
    },
  };
};

describe('SseSubscriber', () => {
  it('replays after the start id, then writes live captures once each, in order', async () => {
    const s = createSink();
    const stored = ['1-0', '2-0', '3-0', '4-0', '5-0'].map(capture);
    const sub = new SseSubscriber(options(s.sink, { stored }).o);
    // live captures that arrived while subscribing overlap the stored ones
    sub.onCapture(capture('4-0'));
    sub.onCapture(capture('5-0'));
    sub.onCapture(capture('6-0'));
    await sub.start({ afterId: '2-0', replay: true });
    sub.onCapture(capture('6-0'));
    sub.onCapture(capture('7-0'));
    await new Promise((resolve) => setImmediate(resolve)); // live writes run after the queueing call
    expect(s.ids()).toEqual(['3-0', '4-0', '5-0', '6-0', '7-0']);
    sub.close();
  });

  it('writes forwarding events without an id, after the replay, in the order they came with the captures', async () => {
    const s = createSink();
    const sub = new SseSubscriber(options(s.sink, { stored: [capture('1-0')] }).o);
    const attempt = { target: 'http://t', attempt: 1, status: 200, at: 'now', outcome: 'delivered' as const };
    sub.onForwarding({ requestId: '1-0', ...attempt });
    sub.onCapture(capture('2-0'));
    await sub.start({ afterId: '0-0', replay: true });
    sub.onForwarding({ requestId: '2-0', ...attempt });
    await new Promise((resolve) => setImmediate(resolve));
    expect(s.events()).toEqual(['request', 'forwarding', 'request', 'forwarding']);
    expect(s.ids()).toEqual(['1-0', '2-0']);
    expect(s.chunks[1]).toBe(
      'event: forwarding\ndata: {"requestId":"1-0","target":"http://t","attempt":1,"status":200,"at":"now","outcome":"delivered"}\n\n',
    );
    sub.close();
  });

  it('writes only what follows the start id when not replaying', async () => {
    const s = createSink();
    const sub = new SseSubscriber(options(s.sink).o);
    sub.onCapture(capture('1-0'));
    sub.onCapture(capture('3-0'));
    await sub.start({ afterId: '2-0', replay: false });
    expect(s.ids()).toEqual(['3-0']);
    sub.close();
  });

  it('ends a subscriber that falls too far behind with a final overflow event', async () => {
    const s = createSink({ full: true });
    const { o, closed } = options(s.sink, { maxPendingEvents: 3 });
    const sub = new SseSubscriber(o);
    void sub.start({ afterId: '0-0', replay: false });
    // the first write fills the socket; three more wait; the fourth is one too many
    for (const id of ['1-0', '2-0', '3-0', '4-0', '5-0']) sub.onCapture(capture(id));
    expect(s.ids()).toEqual(['1-0']);
    expect(s.events().at(-1)).toBe('overflow');
    expect(s.chunks.at(-1)).toContain('"code":"SUBSCRIBER_TOO_SLOW","lastEventId":"1-0"');
    expect([s.sink.ended, closed()]).toEqual([true, 1]);
    sub.onCapture(capture('6-0'));
    s.drain();
    await Promise.resolve();
    expect(s.ids()).toEqual(['1-0']);
  });

  it('holds a final event that comes before the stream started, and writes it first', async () => {
    const s = createSink();
    const { o, closed } = options(s.sink);
    const sub = new SseSubscriber(o);
    sub.onEnd('deleted');
    expect([s.chunks.length, closed()]).toEqual([0, 1]);
    await sub.start({ afterId: '0-0', replay: true });
    expect(s.events()).toEqual(['deleted']);
    expect(s.sink.ended).toBe(true);
  });

  it('ends with an error event when the replay cannot be read', async () => {
    const s = createSink();
    const { o } = options(s.sink);
    const sub = new SseSubscriber({ ...o, readAfter: () => Promise.reject(new Error('store down')) });
    await sub.start({ afterId: '1-0', replay: true });
    expect(s.events()).toEqual(['error']);
    expect(s.sink.ended).toBe(true);
  });
});
