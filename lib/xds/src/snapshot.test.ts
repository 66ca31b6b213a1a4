import { describe, expect, it } from 'vitest';
import { DuplicateResourceError } from './errors.js';
import { EMPTY_VERSION, computeVersion, createSnapshotStore } from './snapshot.js';

const T = 'type.googleapis.com/test.Thing';
const r = (name: string, ...bytes: number[]) => ({ name, value: Uint8Array.from(bytes) });

describe('computeVersion', () => {
  it('is 16 hex digits, the same for the same content in any order', () => {
    const v = computeVersion([r('a', 1), r('b', 2)]);
    expect(v).toMatch(/^[0-9a-f]{16}$/);
    expect(computeVersion([r('b', 2), r('a', 1)])).toBe(v);
  });

  it('changes with a name, a value or a boundary between name and value', () => {
    const v = computeVersion([r('a', 1)]);
    expect(computeVersion([r('b', 1)])).not.toBe(v);
    expect(computeVersion([r('a', 2)])).not.toBe(v);
    expect(computeVersion([r('ab', 1)])).not.toBe(computeVersion([r('a', 0x62, 1)]));
  });

  it('gives a type nobody set the hash of nothing', () => {
    expect(EMPTY_VERSION).toBe('e3b0c44298fc1c14');
  });
});

describe('createSnapshotStore', () => {
  it('serves the empty snapshot for a type never set', () => {
    const store = createSnapshotStore();
    expect(store.get(T)).toEqual({ version: EMPTY_VERSION, resources: new Map() });
  });

  it('bumps the version only when the content changes', () => {
    const store = createSnapshotStore();
    const first = store.set(T, [r('a', 1)]);
    expect(first.changed).toBe(true);
    expect(store.set(T, [r('a', 1)])).toEqual({ version: first.version, changed: false });
    const second = store.set(T, [r('a', 1), r('b', 2)]);
    expect(second.changed).toBe(true);
    expect(second.version).not.toBe(first.version);
    expect([...store.get(T).resources.keys()]).toEqual(['a', 'b']);
  });

  it('setting an empty set on a fresh type is no change', () => {
    expect(createSnapshotStore().set(T, [])).toEqual({ version: EMPTY_VERSION, changed: false });
  });

  it('keeps each type apart', () => {
    const store = createSnapshotStore();
    store.set(T, [r('a', 1)]);
    expect(store.get(`${T}2`).version).toBe(EMPTY_VERSION);
  });

  it('rejects two resources with one name and keeps the previous set', () => {
    const store = createSnapshotStore();
    const { version } = store.set(T, [r('a', 1)]);
    expect(() => store.set(T, [r('x', 1), r('x', 2)])).toThrow(new DuplicateResourceError(T, 'x'));
    expect(() => store.set(T, [r('x', 1), r('x', 2)])).toThrow(`${T}: resource "x" appears more than once`);
    expect(store.get(T).version).toBe(version);
  });

  it('keeps the version and encoding of each resource whose value did not change', () => {
    const store = createSnapshotStore();
    store.set(T, [r('a', 1), r('b', 2), r('c', 3)]);
    const before = store.get(T).resources;
    store.set(T, [r('a', 1), r('b', 9), r('c', 3)]);
    const after = store.get(T).resources;
    expect(after.get('a')).toBe(before.get('a'));
    expect(after.get('c')).toBe(before.get('c'));
    expect(after.get('b')?.version).not.toBe(before.get('b')?.version);
    expect(after.get('b')?.value).toEqual(Uint8Array.from([9]));
  });

  it('gives a resource the same version wherever its value is the same', () => {
    const store = createSnapshotStore();
    store.set(T, [r('a', 1)]);
    store.set(`${T}2`, [r('a', 1)]);
    store.set(T, [r('a', 2)]);
    store.set(T, [r('a', 1)]);
    expect(store.get(T).resources.get('a')?.version).toBe(store.get(`${T}2`).resources.get('a')?.version);
    expect(store.get(T).version).toBe(computeVersion([r('a', 1)]));
  });
});
