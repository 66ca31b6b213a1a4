import { describe, expect, it } from 'vitest';
import { toDescriptors } from './rate-limit.js';

describe('rate-limit descriptors', () => {
  it('names each action with its key', () => {
    expect(toDescriptors({ action: 'create_endpoint', remoteAddress: '10.0.0.1' })).toEqual([
      [
        { key: 'action', value: 'create_endpoint' },
        { key: 'remote_address', value: '10.0.0.1' },
      ],
    ]);
    expect(toDescriptors({ action: 'capture', endpointId: 'abc' })).toEqual([
      [
        { key: 'action', value: 'capture' },
        { key: 'endpoint', value: 'abc' },
      ],
    ]);
    expect(toDescriptors({ action: 'replay', endpointId: 'abc' })).toEqual([
      [
        { key: 'action', value: 'replay' },
        { key: 'endpoint', value: 'abc' },
      ],
    ]);
    expect(toDescriptors({ action: 'sign_up', remoteAddress: '10.0.0.1' })).toEqual([
      [
        { key: 'action', value: 'sign_up' },
        { key: 'remote_address', value: '10.0.0.1' },
      ],
    ]);
  });

  it('counts sign-in per address and per lower-cased user name', () => {
    expect(toDescriptors({ action: 'sign_in', remoteAddress: '10.0.0.1', username: 'Alice' })).toEqual([
      [
        { key: 'action', value: 'sign_in' },
        { key: 'remote_address', value: '10.0.0.1' },
      ],
      [
        { key: 'action', value: 'sign_in' },
        { key: 'username', value: 'alice' },
      ],
    ]);
  });
});
