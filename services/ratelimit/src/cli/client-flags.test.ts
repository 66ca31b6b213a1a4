import { describe, expect, it } from 'vitest';
import { UsageError } from './cli-errors.js';
import { parseClientFlags } from './client-flags.js';

describe('parseClientFlags', () => {
  it("reads upstream's command line, each -descriptors flag one descriptor", () => {
    expect(
      parseClientFlags([
        '-dial_string',
        'rl:81',
        '--domain=mongo_cps',
        '-descriptors',
        'database=default,user=a',
        '-descriptors=path=',
        '-grpc-use-tls',
        '-grpc-server-ca-file',
        'ca.pem',
      ]),
    ).toEqual({
      dialString: 'rl:81',
      domain: 'mongo_cps',
      descriptors: [
        [
          { key: 'database', value: 'default' },
          { key: 'user', value: 'a' },
        ],
        [{ key: 'path', value: '' }],
      ],
      tls: { enabled: true, caFile: 'ca.pem', certFile: '', keyFile: '' },
      help: false,
    });
  });

  it('defaults to localhost:8081 and stops at the first argument that is not a flag', () => {
    expect(parseClientFlags(['-grpc-use-tls=false', 'rest', '-domain', 'x'])).toMatchObject({
      dialString: 'localhost:8081',
      domain: '',
      tls: { enabled: false },
    });
  });

  it.each([
    [['-colour', 'red'], 'flag provided but not defined: -colour'],
    [['-domain'], 'flag needs an argument: -domain'],
    [['-descriptors', 'a=b=c'], '-descriptors "a=b=c": expected key=value,key2=value2'],
    [['-descriptors', 'a'], '-descriptors "a": expected key=value,key2=value2'],
    [['-grpc-use-tls=yes'], 'invalid boolean value "yes" for -grpc-use-tls'],
  ])('rejects %j', (argv, message) => {
    expect(() => parseClientFlags(argv)).toThrow(new UsageError(message));
  });
});
