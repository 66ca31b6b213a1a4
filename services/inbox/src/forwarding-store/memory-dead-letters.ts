import type { MemoryInboxStore } from '../store/memory.js';
import { compareStreamIds, parseStreamId, ZERO_STREAM_ID } from '../contract/stream-id.js';
import {
  MAX_DEAD_LETTERS_PER_ENDPOINT,
  redriveEntry,
  type DeadLetters,
  type StoredDeadLetter,
} from './dead-letters.js';

/**
 * The dead letters of local mode, in process memory beside the memory store (a restart loses them, as it
 * loses the captures). A redrive runs without yielding between its check and its changes, so two callers
 * never redrive one letter: the first removes it.
 */
export function createMemoryDeadLetters(o: { store: MemoryInboxStore; now?: () => number }): DeadLetters {
  const now = o.now ?? Date.now;
  /** By endpoint id, oldest first. */
  const letters = new Map<string, StoredDeadLetter[]>();
  let lastId = ZERO_STREAM_ID;
  const nextId = (): string => {
    const [lastMs, lastSeq] = parseStreamId(lastId);
    const ms = Math.max(now(), lastMs);
    lastId = ms === lastMs ? `${ms}-${lastSeq + 1}` : `${ms}-0`;
    return lastId;
  };
  const remove = (endpointId: string, id: string): boolean => {
    const list = letters.get(endpointId) ?? [];
    const i = list.findIndex((l) => l.id === id);
    if (i >= 0) list.splice(i, 1);
    return i >= 0;
  };

  return {
    add(letter) {
      const list = letters.get(letter.endpointId) ?? [];
      letters.set(letter.endpointId, list);
      list.push({ ...letter, id: nextId() });
      if (list.length > MAX_DEAD_LETTERS_PER_ENDPOINT)
        list.splice(0, list.length - MAX_DEAD_LETTERS_PER_ENDPOINT);
      return Promise.resolve();
    },
    list(endpointId, page) {
      const list = (letters.get(endpointId) ?? [])
        .filter((l) => page.before === undefined || compareStreamIds(l.id, page.before) < 0)
        .slice(-page.limit)
        .reverse();
      return Promise.resolve(list.map((l) => ({ ...l })));
    },
    get(endpointId, id) {
      const found = letters.get(endpointId)?.find((l) => l.id === id);
      return Promise.resolve(found && { ...found });
    },
    async redrive(letter) {
      const capture = await o.store.getCapture(letter.endpointId, letter.requestId);
      // from here on nothing yields: the checks and the changes are one step
      if (!letters.get(letter.endpointId)?.some((l) => l.id === letter.id)) return 'missing';
      if (!capture) {
        remove(letter.endpointId, letter.id);
        return 'gone';
      }
      const group = o.store.forwardGroups.get(letter.endpointId);
      const pendingSince = group?.pending.get(letter.requestId);
      // -Infinity: redriven already, for another target, and not yet claimed by the forwarder
      if (!group || (pendingSince !== undefined && pendingSince !== -Infinity)) return 'busy';
      void o.store.recordForwardAttempt(
        letter.endpointId,
        letter.requestId,
        redriveEntry(letter, new Date(now()).toISOString()),
      );
      group.pending.set(letter.requestId, -Infinity);
      remove(letter.endpointId, letter.id);
      return 'redriven';
    },
    count(endpointIds) {
      return Promise.resolve(endpointIds.reduce((n, id) => n + (letters.get(id)?.length ?? 0), 0));
    },
  };
}
