import { ACCOUNTS_ERRORS } from '@portcullis/accounts';
import { CONFIG_ERRORS } from '@portcullis/config';
import { KIT_ERRORS, listErrorCodes, UnavailableError } from '@portcullis/kit';
import { RATELIMIT_CLIENT_ERRORS } from '@portcullis/ratelimit-client';
import { compareErrorTable } from '@portcullis/testing';
import { describe, expect, it } from 'vitest';
import { CLI_ERRORS } from './cli/cli-errors.js';
import { ANSWERED_ERRORS, toHttpError } from './error-mapper.js';
import { INBOX_ERRORS } from './errors.js';

describe('inbox errors', () => {
  it('registers each code of the inbox, its CLI and its libraries once, with one status', () => {
    const all = [
      KIT_ERRORS,
      ACCOUNTS_ERRORS,
      CONFIG_ERRORS,
      RATELIMIT_CLIENT_ERRORS,
      INBOX_ERRORS,
      CLI_ERRORS,
    ];
    expect(listErrorCodes(...all)).toContainEqual({ code: 'UNAVAILABLE', status: 503 });
  });

  it('documents in docs/errors.md every code it answers, with its status, and no other', () => {
    const readme = new URL('../docs/errors.md', import.meta.url).pathname;
    const diff = compareErrorTable(readme, ANSWERED_ERRORS);
    expect(diff).toEqual({ undocumented: [], notAnswered: [], wrongStatus: [], repeated: [] });
  });

  it('answers a failed store 503 UNAVAILABLE', () => {
    expect(toHttpError(new UnavailableError('inbox store: redis XADD failed'))).toMatchObject({
      statusCode: 503,
      body: { error: 'inbox store: redis XADD failed', code: 'UNAVAILABLE' },
    });
  });
});
