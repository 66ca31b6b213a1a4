import { describe, expect, it } from 'vitest';
import { PortUnavailableError, SettingsError } from './errors.js';
import { describeStartFailure } from './start-report.js';

describe('describeStartFailure', () => {
  it('gives each bad setting a line, then what to do', () => {
    expect(
      describeStartFailure('ratelimit', new SettingsError(['A="x": bad', 'B="y": worse']), 'warn'),
    ).toEqual([
      'ratelimit: A="x": bad',
      'ratelimit: B="y": worse',
      'ratelimit: not started: fix these settings and start it again (its docs/settings.md lists every setting)',
    ]);
  });

  it('names the variable of a taken port, in one line', () => {
    const err = new PortUnavailableError('INBOX_PORT', { host: '127.0.0.1', port: 8089, reason: 'in use' });
    expect(describeStartFailure('inbox', err, 'info')).toEqual([
      'inbox: not started: INBOX_PORT=8089: 127.0.0.1:8089 is in use; stop what listens there, or set INBOX_PORT to a free port',
    ]);
  });

  it('shows the stack of anything else only at debug', () => {
    const err = new Error('boom');
    expect(describeStartFailure('gateway', err, 'info')).toEqual([
      'gateway: start-up failed: boom',
      'gateway: LOG_LEVEL=debug shows where it failed',
    ]);
    expect(describeStartFailure('gateway', err, 'debug')[1]).toContain('start-report.test.ts');
  });
});
