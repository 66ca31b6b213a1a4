import { SettingsError } from '@portcullis/kit';
import { describe, expect, it } from 'vitest';
import { createRedisClient } from './client.js';
import { FAIL_FAST_POLICY } from './client-policy.js';
import { toSingleConnection } from './connection-settings.js';

describe('createRedisClient', () => {
  it.each([
    ['single', 'localhost:six'],
    ['sentinel', 'mymaster,127.0.0.1:26379,127.0.0.1:'],
    ['cluster', '127.0.0.1:7000,127.0.0.1:70000'],
  ] as const)('refuses a %s URL with a bad port before connecting, naming the address', (type, url) => {
    const connect = () => createRedisClient({ ...toSingleConnection(url), type }, FAIL_FAST_POLICY);
    expect(connect).toThrow(SettingsError);
    expect(connect).toThrow(/expected host:port with a port from 1 to 65535/);
  });
});
