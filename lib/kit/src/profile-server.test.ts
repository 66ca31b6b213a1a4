import { describe, expect, it } from 'vitest';
import { createEnvReader } from './env.js';
import { readProfileListener } from './profile-server.js';

const NAMES = { host: 'X_DEBUG_HOST', port: 'X_DEBUG_PORT' };

describe('readProfileListener', () => {
  it('is none while the port is unset, on 127.0.0.1 unless a host is given', () => {
    expect(readProfileListener(createEnvReader({}), NAMES)).toBeUndefined();
    expect(readProfileListener(createEnvReader({ X_DEBUG_PORT: '6061' }), NAMES)).toEqual({
      host: '127.0.0.1',
      port: 6061,
      setting: 'X_DEBUG_PORT',
    });
    expect(
      readProfileListener(createEnvReader({ X_DEBUG_PORT: '0', X_DEBUG_HOST: '0.0.0.0' }), NAMES),
    ).toEqual({ host: '0.0.0.0', port: 0, setting: 'X_DEBUG_PORT' });
  });

  it('refuses a port that is no port, naming the variable', () => {
    const env = createEnvReader({ X_DEBUG_PORT: '70000' });
    readProfileListener(env, NAMES);
    expect(() => env.finish()).toThrow(/X_DEBUG_PORT="70000"/);
  });
});
