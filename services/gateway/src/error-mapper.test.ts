import { ACCOUNTS_ERRORS, AccountsBackendError } from '@portcullis/accounts';
import { CONFIG_ERRORS } from '@portcullis/config';
import { KIT_ERRORS, listErrorCodes } from '@portcullis/kit';
import { RATELIMIT_CLIENT_ERRORS } from '@portcullis/ratelimit-client';
import { compareErrorTable } from '@portcullis/testing';
import { XDS_ERRORS } from '@portcullis/xds';
import { describe, expect, it } from 'vitest';
import { ANSWERED_ERRORS, toHttpError } from './error-mapper.js';
import { GATEWAY_ERRORS } from './errors.js';

describe('gateway errors', () => {
  it('registers each code of every package it uses once, with one status', () => {
    const codes = listErrorCodes(
      KIT_ERRORS,
      ACCOUNTS_ERRORS,
      CONFIG_ERRORS,
      RATELIMIT_CLIENT_ERRORS,
      XDS_ERRORS,
      GATEWAY_ERRORS,
    );
    expect(codes).toContainEqual({ code: 'ACCOUNTS_BACKEND_UNAVAILABLE', status: 503 });
  });

  it('documents in docs/errors.md every code it answers, with its status, and no other', () => {
    const readme = new URL('../docs/errors.md', import.meta.url).pathname;
    expect(compareErrorTable(readme, ANSWERED_ERRORS)).toEqual({
      undocumented: [],
      notAnswered: [],
      wrongStatus: [],
      repeated: [],
    });
  });

  it('answers a dead accounts backend 503 with its code', () => {
    expect(toHttpError(new AccountsBackendError('accounts backend: redis GET failed'))).toEqual({
      statusCode: 503,
      body: { error: 'accounts backend: redis GET failed', code: 'ACCOUNTS_BACKEND_UNAVAILABLE' },
      headers: {},
    });
  });
});
