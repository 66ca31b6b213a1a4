import { describe, expect, it } from 'vitest';
import { SettingsError } from './errors.js';
import { splitHostPort } from './host-port.js';

describe('splitHostPort', () => {
  it.each([
    ['cache-0:11212', { host: 'cache-0', port: 11212 }],
    ['cache-0', { host: 'cache-0', port: 11211 }],
    ['10.0.0.7:1', { host: '10.0.0.7', port: 1 }],
    ['[::1]:65535', { host: '::1', port: 65535 }],
    ['[fd00::7]', { host: 'fd00::7', port: 11211 }],
    ['fd00::7', { host: 'fd00::7', port: 11211 }],
  ])('%s is %o', (address, hostPort) => {
    expect(splitHostPort(address, 11211)).toEqual(hostPort);
  });

  it.each([
    ['cache-0:', 'expected host:port with a port from 1 to 65535'],
    ['cache-0:abc', 'expected host:port with a port from 1 to 65535'],
    ['cache-0:0', 'expected host:port with a port from 1 to 65535'],
    ['cache-0:65536', 'expected host:port with a port from 1 to 65535'],
    ['cache-0:-1', 'expected host:port with a port from 1 to 65535'],
    ['[::1]:x', 'expected host:port with a port from 1 to 65535'],
    ['', 'expected host:port, and no host is given'],
    [':11211', 'expected host:port, and no host is given'],
    ['[]:11211', 'expected host:port, and no host is given'],
  ])('refuses %j, naming it', (address, why) => {
    const thrown = (() => {
      try {
        splitHostPort(address, 11211);
      } catch (e: unknown) {
        return e;
      }
      return undefined;
    })();
    expect(thrown).toBeInstanceOf(SettingsError);
    expect((thrown as SettingsError).problems).toEqual([`"${address}": ${why}`]);
  });
});
