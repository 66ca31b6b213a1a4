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
    expect(format.line(tagged, '1|c')).toBe(
      'ratelimit.memcache.multiget.__app=rl.__code=error.__zone=b_1:1|c',
    );
    expect(format.line('ratelimit.service.config_load_success', '2|c')).toBe(
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
    expect(format.line(tagged, '1|c')).toBe('memcache.multiget:1|c|#app:rl,code:error,zone:b_1,op:multiget');
    expect(format.line('ratelimit.service.config_load_success', '2|c')).toBe(
      'ratelimit.service.config_load_success:2|c|#app:rl,zone:b_1',
    );
  });

  it.each([false, true])(
    'writes each name the same from its held parts, and holds only the last two flushes’ names (dogStatsd %s)',
    (dogStatsd) => {
      const mogrifiers = [{ key: 'MC', pattern: '^ratelimit\\.memcache\\.(\\w+)$', name: 'm.$1', tags: [] }];
      const fresh = () => createLineFormat({ tags, dogStatsd, mogrifiers });
      const format = fresh();
      const names = [tagged, 'ratelimit.service.config_load_success', 'ratelimit.a|b:c'];
      const lines = (f: ReturnType<typeof fresh>, value: string) => names.map((n) => f.line(n, value));
      const first = lines(format, '1|c');
      format.endFlush();
      expect(lines(format, '7|g')).toEqual(lines(fresh(), '7|g'));
      expect(first).toEqual(lines(fresh(), '1|c'));
      format.endFlush();
      format.line(tagged, '1|c');
      expect(format.heldNames()).toBe(3);
      format.endFlush();
      format.line(tagged, '2|c');
      expect(format.heldNames()).toBe(1);
      format.endFlush();
      format.endFlush();
      expect(format.heldNames()).toBe(0);
      expect(format.line(tagged, '3|c')).toBe(fresh().line(tagged, '3|c'));
    },
  );
});

describe('createLineFormat with a newline in a name', () => {
  it.each([false, true])('never starts a line of the name’s making (dogStatsd %s)', (dogStatsd) => {
    const format = createLineFormat({ tags: {}, dogStatsd, mogrifiers: [] });
    const line = format.line('ratelimit.service.rate_limit.d.k_x\nevil:1|c\ny.total_hits', '1|c');
    expect(line).toBe('ratelimit.service.rate_limit.d.k_x_evil:1|c_y.total_hits:1|c');
  });
});
