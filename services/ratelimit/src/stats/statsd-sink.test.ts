import { describe, expect, it } from 'vitest';
import { createLineFormat, packLines } from './statsd-sink.js';

describe('packLines', () => {
  it('fills each datagram up to the limit and never splits a line', () => {
    expect(packLines(['aaaa', 'bbbb', 'cccc', 'dddddddddddd', 'e'], 9)).toEqual([
      'aaaa\nbbbb',
      'cccc',
      'dddddddddddd',
      'e',
    ]);
    expect(packLines([], 9)).toEqual([]);
  });
});

describe('createLineFormat', () => {
  const tagged = 'ratelimit.memcache.multiget.__code=error';
  const tags = { zone: 'b.1', app: 'rl' };

  it('writes a tagged counter with EXTRA_TAGS sorted in among its tags for plain statsd, as gostats', () => {
    const format = createLineFormat({ tags, dogStatsd: false, mogrifiers: [] });
    expect(format(tagged, '1|c')).toBe('ratelimit.memcache.multiget.__app=rl.__code=error.__zone=b_1:1|c');
    expect(format('ratelimit.service.config_load_success', '2|c')).toBe(
      'ratelimit.service.config_load_success.__app=rl.__zone=b_1:2|c',
    );
  });

  it('moves the tags written into a name to DogStatsD tags, then the mogrifier renames the bare name', () => {
    const format = createLineFormat({
      tags,
      dogStatsd: true,
      mogrifiers: [
        { key: 'MC', pattern: '^ratelimit\\.memcache\\.(\\w+)$', name: 'memcache.$1', tags: [['op', '$1']] },
      ],
    });
    expect(format(tagged, '1|c')).toBe('memcache.multiget:1|c|#app:rl,code:error,zone:b_1,op:multiget');
    expect(format('ratelimit.service.config_load_success', '2|c')).toBe(
      'ratelimit.service.config_load_success:2|c|#app:rl,zone:b_1',
    );
  });
});
