import { describe, expect, it, vi } from 'vitest';
import { renderResponseBody, waitDelay } from './custom-response.js';

const json = (body: string) => ({
  body: Buffer.from(body),
  rawHeaders: ['Content-Type', 'application/json'],
});

describe('renderResponseBody', () => {
  it("fills {{body.…}} from the request's JSON body: strings as they are, numbers and booleans as JSON", () => {
    const capture = json('{"challenge":"3eZbrw1a","n":{"list":[{"v":2.5}],"ok":true}}');
    expect(renderResponseBody('{{body.challenge}}', capture, 64)).toBe('3eZbrw1a');
    expect(renderResponseBody('v={{ body.n.list.0.v }} ok={{body.n.ok}}', capture, 64)).toBe('v=2.5 ok=true');
  });

  it('puts nothing for a missing field, an object, null, or a body that is not JSON', () => {
    const capture = json('{"a":{"b":1},"z":null}');
    expect(
      renderResponseBody('[{{body.a}}][{{body.z}}][{{body.q.r}}][{{body.constructor}}]', capture, 64),
    ).toBe('[][][][]');
    expect(renderResponseBody('[{{body.a}}]', { body: Buffer.from('{"a":1}'), rawHeaders: [] }, 64)).toBe(
      '[]',
    );
  });

  it('reads one level of a urlencoded form (Slack slash commands)', () => {
    const form = {
      body: Buffer.from('command=%2Fhi&text=a+b'),
      rawHeaders: ['content-type', 'application/x-www-form-urlencoded'],
    };
    expect(renderResponseBody('{{body.command}}: {{body.text}}', form, 64)).toBe('/hi: a b');
  });

  it('inserts values as text, never read as placeholders again', () => {
    expect(renderResponseBody('{{body.a}}', json('{"a":"{{body.b}}","b":"x"}'), 64)).toBe('{{body.b}}');
  });
});

describe('waitDelay', () => {
  it('ends after the delay', async () => {
    vi.useFakeTimers();
    try {
      let done = false;
      const waiting = waitDelay(1000, new AbortController().signal, new AbortController().signal).then(
        () => (done = true),
      );
      await vi.advanceTimersByTimeAsync(999);
      expect(done).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await waiting;
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('ends at once when the sender goes away or the server closes, leaving no timer', async () => {
    vi.useFakeTimers();
    try {
      for (const which of ['gone', 'stop'] as const) {
        const stop = new AbortController();
        const gone = new AbortController();
        const waiting = waitDelay(3_600_000, stop.signal, gone.signal);
        (which === 'gone' ? gone : stop).abort();
        await waiting;
        expect(vi.getTimerCount()).toBe(0);
      }
      const closed = new AbortController();
      closed.abort();
      await waitDelay(3_600_000, closed.signal, new AbortController().signal);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
