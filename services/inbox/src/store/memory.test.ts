import { describe, expect, it } from 'vitest';
import { StoreFullError } from '../errors.js';
import { CAPTURE_OVERHEAD_BYTES, captureBytes, createMemoryStore } from './memory.js';
import type { CaptureInput } from '../contract/capture-records.js';
import type { NewEndpoint } from './types.js';

const HOUR_MS = 3_600_000;

const endpoint = (id: string): NewEndpoint => ({
  id,
  name: '',
  tokenSha256: 'ab',
  ownerId: '',
  createdAt: '2026-01-01T00:00:00.000Z',
  retention: { maxRequests: 3, maxAgeMs: HOUR_MS },
});

/** A capture of `bodyBytes` whose charge is exactly `bodyBytes + CAPTURE_OVERHEAD_BYTES`. */
const capture = (bodyBytes: number): CaptureInput => ({
  receivedAt: 0,
  method: '',
  url: '',
  nestedPath: '',
  httpVersion: '',
  rawHeaders: [],
  remoteAddress: '',
  body: Buffer.alloc(bodyBytes),
  bodySha256: '',
});

const CHARGE = 1000 + CAPTURE_OVERHEAD_BYTES;

describe('memory store bounds', () => {
  it('charges a capture its body, strings and a flat overhead', () => {
    expect(captureBytes(capture(1000))).toBe(CHARGE);
    expect(captureBytes({ ...capture(0), url: '/api/hook/x', rawHeaders: ['a', 'bé'] })).toBe(
      11 + 1 + 3 + CAPTURE_OVERHEAD_BYTES,
    );
  });

  it('refuses a capture past maxBytes with StoreFullError, keeping every stored one, and counts it', async () => {
    const full: string[] = [];
    const store = createMemoryStore({ maxBytes: 2 * CHARGE, onFull: (what) => full.push(what) });
    await store.createEndpoint(endpoint('a'));
    await store.createEndpoint(endpoint('b'));
    expect(await store.appendCapture('a', capture(1000), 10)).toBeDefined();
    expect(await store.appendCapture('b', capture(1000), 10)).toBeDefined();
    await expect(store.appendCapture('b', capture(1000), 10)).rejects.toBeInstanceOf(StoreFullError);
    expect(full).toEqual(['capture']);
    expect(await store.countCaptures('a')).toBe(1);
    expect(await store.countCaptures('b')).toBe(1);
    // a smaller one still fits nowhere, an unknown endpoint is still "not found" rather than "full"
    await expect(store.appendCapture('a', capture(1), 10)).rejects.toBeInstanceOf(StoreFullError);
    expect(await store.appendCapture('nope', capture(1), 10)).toBeUndefined();
  });

  it('lets a capture in when its endpoint’s own count trimming frees the room', async () => {
    const store = createMemoryStore({ maxBytes: 2 * CHARGE });
    await store.createEndpoint(endpoint('a'));
    await store.appendCapture('a', capture(1000), 2);
    await store.appendCapture('a', capture(1000), 2);
    expect(await store.appendCapture('a', capture(1000), 2)).toBeDefined();
    expect(await store.countCaptures('a')).toBe(2);
  });

  it('gives the room back when captures age out, an endpoint is deleted, or a detached stream expires', async () => {
    let t = Date.UTC(2026, 0, 1);
    const store = createMemoryStore({ maxBytes: CHARGE, now: () => t });
    await store.createEndpoint(endpoint('a'));
    await store.appendCapture('a', capture(1000), 10);
    await expect(store.appendCapture('a', capture(1000), 10)).rejects.toBeInstanceOf(StoreFullError);
    t += HOUR_MS + 1;
    await store.trimByAge(t);
    expect(await store.appendCapture('a', capture(1000), 10)).toBeDefined();

    await store.deleteEndpoint('a');
    await store.syncManagedEndpoints([
      { id: 'm', name: '', resource: 'ns/m', retention: { maxRequests: 10, maxAgeMs: HOUR_MS }, forward: [] },
    ]);
    expect(await store.appendCapture('m', capture(1000), 10)).toBeDefined();
    await store.syncManagedEndpoints([]); // detached: still held until its age
    await store.createEndpoint(endpoint('b'));
    await expect(store.appendCapture('b', capture(1000), 10)).rejects.toBeInstanceOf(StoreFullError);
    t += HOUR_MS + 1;
    await store.trimByAge(t);
    expect(await store.appendCapture('b', capture(1000), 10)).toBeDefined();
  });

  it('refuses an endpoint past maxEndpoints; managed endpoints count but are never refused', async () => {
    const full: string[] = [];
    const store = createMemoryStore({ maxEndpoints: 2, onFull: (what) => full.push(what) });
    await store.createEndpoint(endpoint('a'));
    await store.syncManagedEndpoints([
      { id: 'm', name: '', resource: 'ns/m', retention: { maxRequests: 1, maxAgeMs: 1 }, forward: [] },
      { id: 'n', name: '', resource: 'ns/n', retention: { maxRequests: 1, maxAgeMs: 1 }, forward: [] },
    ]);
    expect((await store.listManagedEndpoints()).length).toBe(2);
    await expect(store.createEndpoint(endpoint('b'))).rejects.toBeInstanceOf(StoreFullError);
    expect(full).toEqual(['endpoint']);
    await store.deleteEndpoint('a');
    await store.syncManagedEndpoints([]);
    await store.createEndpoint(endpoint('b'));
    expect(await store.getEndpoint('b')).toBeDefined();
  });
});
