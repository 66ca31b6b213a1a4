import { describe, expect, it } from 'vitest';
import { createLogger } from './log.js';

function capture(): { lines: string[]; write(line: string): void } {
  const lines: string[] = [];
  return { lines, write: (line) => void lines.push(line) };
}

describe('createLogger', () => {
  it('writes JSON lines with @timestamp, level and @message', () => {
    const out = capture();
    const log = createLogger({ level: 'info', format: 'json', destination: out });
    log.child({ component: 'test' }).warn({ domain: 'd' }, 'config rejected');
    log.debug('hidden');
    expect(out.lines).toHaveLength(1);
    const line = JSON.parse(out.lines[0] ?? '') as Record<string, unknown>;
    expect(line).toMatchObject({
      level: 'warn',
      '@message': 'config rejected',
      component: 'test',
      domain: 'd',
    });
    expect(Date.parse(String(line['@timestamp']))).not.toBeNaN();
  });

  it('writes text lines opening with time, level and msg', () => {
    const out = capture();
    const log = createLogger({ level: 'debug', format: 'text', destination: out });
    log.info({ port: 8080, note: 'two words' }, 'listening');
    expect(out.lines[0]).toMatch(/^time=\S+ level=info msg=listening port=8080 note="two words"\n$/);
  });
});

describe('text lines with an error field', () => {
  const failure = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8125'), { code: 'ECONNREFUSED' });

  it('show its message and code, not its stack, above debug', () => {
    const out = capture();
    createLogger({ level: 'info', format: 'text', destination: out }).warn({ err: failure }, 'statsd failed');
    expect(out.lines[0]).toMatch(
      /^time=\S+ level=warn msg="statsd failed" err="connect ECONNREFUSED 127\.0\.0\.1:8125" errCode=ECONNREFUSED\n$/,
    );
  });

  it('keep the stack at debug, and in JSON always', () => {
    for (const o of [
      { level: 'debug', format: 'text' },
      { level: 'info', format: 'json' },
    ] as const) {
      const out = capture();
      createLogger({ ...o, destination: out }).warn({ err: failure }, 'statsd failed');
      expect(out.lines[0]).toContain('log.test.ts');
    }
  });
});
