import { createCollectingLog } from '@portcullis/testing';
import { describe, expect, it } from 'vitest';
import { API_VERSION } from '@portcullis/config';
import type { Outcome } from '../reconcile/types.js';
import { LogStatusSink } from './status-writer.js';

function rejected(uid: string, message: string): Outcome {
  return {
    resource: {
      apiVersion: API_VERSION,
      kind: 'RateLimitConfig',
      metadata: {
        name: uid,
        namespace: 'team',
        uid,
        generation: 1,
        creationTimestamp: '2026-11-27T00:00:00Z',
      },
      spec: {},
    },
    rejection: { reason: 'Invalid', message },
    servedGeneration: undefined,
  };
}

describe('LogStatusSink', () => {
  it('logs a rejection once per change, and again for a resource it was told is gone', async () => {
    const { log, lines } = createCollectingLog();
    const sink = new LogStatusSink(log);
    const rejections = (): unknown[] => lines.filter((l) => l['@message'] === 'resource rejected');

    await sink.write([rejected('a', 'bad'), rejected('b', 'bad')]);
    await sink.write([rejected('a', 'bad'), rejected('b', 'bad')]);
    expect(rejections()).toHaveLength(2);
    await sink.write([rejected('a', 'worse')]);
    expect(rejections()).toHaveLength(3);

    sink.retain(new Set(['a']));
    await sink.write([rejected('a', 'worse'), rejected('b', 'bad')]);
    expect(rejections()).toHaveLength(4);
  });
});
