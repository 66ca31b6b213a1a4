import { describe, expect, it } from 'vitest';
import { RequestError } from '../errors.js';
import { decodeJsonRequest, encodeJsonResponse } from './json-codec.js';
import { DEFAULT_REQUEST_BOUNDS } from './request-bounds.js';

describe('decodeJsonRequest', () => {
  it('reads camelCase and snake_case names, integers as numbers or strings, enums as names or numbers', () => {
    expect(
      decodeJsonRequest(
        {
          domain: 'd',
          hits_addend: '3',
          descriptors: [
            {
              entries: [{ key: 'k', value: 'v' }],
              limit: { requests_per_unit: 5, unit: 'HOUR' },
              hitsAddend: '0',
            },
            { entries: [{ key: 'k' }], limit: { requestsPerUnit: '7', unit: 7 }, hits_addend: null },
          ],
        },
        DEFAULT_REQUEST_BOUNDS,
      ),
    ).toEqual({
      domain: 'd',
      hitsAddend: 3,
      descriptors: [
        { entries: [{ key: 'k', value: 'v' }], limit: { requestsPerUnit: 5, unit: 'HOUR' }, hitsAddend: 0 },
        { entries: [{ key: 'k', value: '' }], limit: { requestsPerUnit: 7, unit: 'WEEK' } },
      ],
    });
  });

  it('treats an UNKNOWN or missing override unit as unset', () => {
    expect(
      decodeJsonRequest(
        { domain: 'd', descriptors: [{ limit: { unit: 'UNKNOWN' } }] },
        DEFAULT_REQUEST_BOUNDS,
      ).descriptors[0]?.limit,
    ).toEqual({
      requestsPerUnit: 0,
      unit: undefined,
    });
  });

  it.each([
    [[], 'body: expected a JSON object'],
    [{ domain: 'd', colour: 1 }, 'colour: unknown field'],
    [{ domain: 5 }, 'domain: expected a string'],
    [{ descriptors: {} }, 'descriptors: expected an array'],
    [
      { descriptors: [{ entries: [{ key: 'k', extra: 1 }] }] },
      'descriptors[0].entries[0].extra: unknown field',
    ],
    [
      { descriptors: [{ limit: { unit: 'FORTNIGHT' } }] },
      'descriptors[0].limit.unit: unknown unit "FORTNIGHT"',
    ],
    [{ hitsAddend: -1 }, 'hitsAddend: expected an unsigned integer ≤ 4294967295'],
    [{ hitsAddend: 2 ** 32 }, 'hitsAddend: expected an unsigned integer ≤ 4294967295'],
    [
      { descriptors: [{ hitsAddend: 1.5 }] },
      'descriptors[0].hitsAddend: expected an unsigned integer ≤ 9007199254740991',
    ],
  ])('rejects %j', (body, message) => {
    expect(() => decodeJsonRequest(body, DEFAULT_REQUEST_BOUNDS)).toThrow(new RequestError(message));
  });

  it('takes descriptors and entries up to the bounds and refuses one more, before reading any of them', () => {
    const bounds = { maxDescriptors: 2, maxDescriptorEntries: 2 };
    const entries = [{ key: 'a' }, { key: 'b' }];
    expect(decodeJsonRequest({ descriptors: [{ entries }, { entries }] }, bounds).descriptors).toHaveLength(
      2,
    );
    // the descriptors past the bound are not even objects: the count is refused before they are read
    expect(() => decodeJsonRequest({ descriptors: [{}, {}, 5, 'x'] }, bounds)).toThrow(
      new RequestError('descriptors[2]: more than 2 descriptors in one request (RATELIMIT_MAX_DESCRIPTORS)'),
    );
    expect(() => decodeJsonRequest({ descriptors: [{}, { entries: [...entries, 5] }] }, bounds)).toThrow(
      new RequestError(
        'descriptors[1].entries[2]: more than 2 entries in one descriptor (RATELIMIT_MAX_DESCRIPTOR_ENTRIES)',
      ),
    );
  });
});

describe('encodeJsonResponse', () => {
  it('writes the proto3 JSON mapping, leaving out what upstream leaves out', () => {
    expect(
      encodeJsonResponse({
        dynamicMetadata: undefined,
        overallCode: 'OVER_LIMIT',
        statuses: [
          {
            code: 'OK',
            currentLimit: { name: undefined, requestsPerUnit: 10, unit: 'MINUTE' },
            limitRemaining: 0,
            durationUntilResetSec: 58,
          },
          {
            code: 'OVER_LIMIT',
            currentLimit: { name: 'n', requestsPerUnit: 0, unit: 'SECOND' },
            limitRemaining: 0,
            durationUntilResetSec: 1,
          },
          { code: 'OK', currentLimit: undefined, limitRemaining: 0, durationUntilResetSec: undefined },
          {
            code: 'OK',
            currentLimit: undefined,
            limitRemaining: 4_294_967_295,
            durationUntilResetSec: undefined,
          },
        ],
        responseHeadersToAdd: [],
      }),
    ).toEqual({
      overallCode: 'OVER_LIMIT',
      statuses: [
        {
          code: 'OK',
          currentLimit: { requestsPerUnit: 10, unit: 'MINUTE' },
          limitRemaining: 0,
          durationUntilReset: '58s',
        },
        {
          code: 'OVER_LIMIT',
          currentLimit: { name: 'n', requestsPerUnit: 0, unit: 'SECOND' },
          durationUntilReset: '1s',
        },
        { code: 'OK' },
        { code: 'OK', limitRemaining: 4_294_967_295 },
      ],
    });
  });
});
