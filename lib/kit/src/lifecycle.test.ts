import { describe, expect, it } from 'vitest';
import { createLogger } from './log.js';
import { startParts, type Part } from './lifecycle.js';

const log = createLogger({ level: 'fatal', format: 'json', destination: { write: () => undefined } });

function part(name: string, events: string[], failStart = false): Part {
  return {
    name,
    start: () => {
      if (failStart) throw new Error(`${name} broke`);
      events.push(`start ${name}`);
    },
    close: () => void events.push(`close ${name}`),
  };
}

describe('startParts', () => {
  it('starts in order and closes in reverse, once', async () => {
    const events: string[] = [];
    const running = await startParts([part('a', events), part('b', events)], log);
    await Promise.all([running.close(), running.close()]);
    expect(events).toEqual(['start a', 'start b', 'close b', 'close a']);
  });

  it('closes what started when a later part fails', async () => {
    const events: string[] = [];
    await expect(startParts([part('a', events), part('b', events, true)], log)).rejects.toThrow('b broke');
    expect(events).toEqual(['start a', 'close a']);
  });
});
