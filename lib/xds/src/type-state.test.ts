import { describe, expect, it } from 'vitest';
import { createSnapshotStore } from './snapshot.js';
import {
  applyRequest,
  createTypeState,
  describeTypeState,
  markSent,
  selectResources,
  shouldSend,
  type TypeState,
} from './type-state.js';

const T = 'type.googleapis.com/test.Thing';

/** A state that has sent `version` with `nonce` to a wildcard subscriber, which has not answered. */
function sentState(version = 'v1', nonce = '1'): TypeState {
  const st = createTypeState(T);
  applyRequest(st, { typeUrl: T });
  markSent(st, { nonce, version });
  return st;
}

describe('nonce bookkeeping', () => {
  it('takes any nonce on the first request of the type: it belongs to an earlier stream', () => {
    const st = createTypeState(T);
    expect(applyRequest(st, { typeUrl: T, versionInfo: 'v0', responseNonce: '99' })).toEqual({
      kind: 'initial',
    });
    expect(st.ackedVersion).toBe('v0');
    expect(shouldSend(st, 'v0')).toBe(true);
  });

  it('ignores a request whose nonce is not the latest sent, changing nothing', () => {
    const st = sentState('v2', '2');
    const before = structuredClone(st);
    expect(
      applyRequest(st, { versionInfo: 'v1', responseNonce: '1', errorDetail: { message: 'x' } }),
    ).toEqual({
      kind: 'stale',
      expectedNonce: '2',
    });
    expect(applyRequest(st, { versionInfo: '', responseNonce: '' })).toMatchObject({ kind: 'stale' });
    expect(st).toEqual(before);
  });

  it('counts an echo of version and nonce as ACK, once', () => {
    const st = sentState();
    expect(applyRequest(st, { versionInfo: 'v1', responseNonce: '1' })).toEqual({
      kind: 'ack',
      version: 'v1',
      nonce: '1',
    });
    expect(st.ackedVersion).toBe('v1');
    expect(applyRequest(st, { versionInfo: 'v1', responseNonce: '1' })).toEqual({ kind: 'resubscribe' });
  });

  it('counts error_detail as NACK of the version sent, whatever version_info says', () => {
    const st = sentState();
    const nack = applyRequest(st, {
      versionInfo: '',
      responseNonce: '1',
      errorDetail: { code: 3, message: 'bad' },
    });
    expect(nack).toEqual({ kind: 'nack', version: 'v1', nonce: '1', message: 'bad', code: 3 });
    expect(describeTypeState(st)).toEqual({
      typeUrl: T,
      subscription: '*',
      sentVersion: 'v1',
      ackedVersion: '',
      lastNack: { version: 'v1', nonce: '1', message: 'bad', code: 3 },
    });
  });

  it('reads an answer with another version and no error_detail as neither', () => {
    expect(applyRequest(sentState(), { versionInfo: 'v0', responseNonce: '1' })).toEqual({
      kind: 'mismatch',
      version: 'v0',
      nonce: '1',
    });
  });
});

describe('shouldSend', () => {
  it('always answers the first request, even with the version the client has', () => {
    const st = createTypeState(T);
    applyRequest(st, { typeUrl: T, versionInfo: 'v1' });
    expect(shouldSend(st, 'v1')).toBe(true);
  });

  it('keeps at most one response outstanding, then sends the latest version', () => {
    const st = sentState();
    expect(shouldSend(st, 'v2')).toBe(false);
    applyRequest(st, { versionInfo: 'v1', responseNonce: '1' });
    expect(shouldSend(st, 'v1')).toBe(false);
    expect(shouldSend(st, 'v2')).toBe(true);
  });

  it('never pushes a NACKed version again, but the next one', () => {
    const st = sentState();
    applyRequest(st, { responseNonce: '1', errorDetail: { message: 'bad' } });
    expect(shouldSend(st, 'v1')).toBe(false);
    expect(shouldSend(st, 'v2')).toBe(true);
    markSent(st, { nonce: '2', version: 'v2' });
    applyRequest(st, { versionInfo: 'v2', responseNonce: '2' });
    expect(shouldSend(st, 'v1')).toBe(false);
    markSent(st, { nonce: '2', version: 'v2' });
    applyRequest(st, { versionInfo: 'v2', responseNonce: '2' });
    expect(shouldSend(st, 'v1')).toBe(false);
  });

  it('sends newly named resources even at the same version, not removed ones', () => {
    const st = createTypeState(T);
    applyRequest(st, { typeUrl: T, resourceNames: ['a'] });
    markSent(st, { nonce: '1', version: 'v1' });
    applyRequest(st, { versionInfo: 'v1', responseNonce: '1', resourceNames: ['a', 'b'] });
    expect(shouldSend(st, 'v1')).toBe(true);
    markSent(st, { nonce: '2', version: 'v1' });
    applyRequest(st, { versionInfo: 'v1', responseNonce: '2', resourceNames: ['b'] });
    expect(shouldSend(st, 'v1')).toBe(false);
  });
});

describe('subscriptions', () => {
  const store = createSnapshotStore();
  const value = Uint8Array.of(1);
  store.set(T, [
    { name: 'a', value },
    { name: 'b', value },
    { name: 'c', value },
  ]);
  const names = (st: TypeState) => selectResources(st, store.get(T)).map((r) => r.name);

  it('an empty list first is a wildcard: every resource', () => {
    const st = createTypeState(T);
    applyRequest(st, { typeUrl: T });
    expect(names(st)).toEqual(['a', 'b', 'c']);
  });

  it('named resources are all that exist of those named; missing ones are remembered', () => {
    const st = createTypeState(T);
    applyRequest(st, { typeUrl: T, resourceNames: ['c', 'a', 'z'] });
    expect(names(st)).toEqual(['a', 'c']);
    expect(describeTypeState(st).subscription).toEqual(['a', 'c', 'z']);
  });

  it('after names, an empty list means none, and nothing is sent', () => {
    const st = createTypeState(T);
    applyRequest(st, { typeUrl: T, resourceNames: ['a'] });
    markSent(st, { nonce: '1', version: 'v1' });
    applyRequest(st, { versionInfo: 'v1', responseNonce: '1', resourceNames: [] });
    expect(names(st)).toEqual([]);
    expect(shouldSend(st, 'v2')).toBe(false);
  });

  it('"*" among names asks for everything', () => {
    const st = createTypeState(T);
    applyRequest(st, { typeUrl: T, resourceNames: ['*', 'a'] });
    expect(names(st)).toEqual(['a', 'b', 'c']);
    expect(describeTypeState(st).subscription).toBe('*');
  });
});
