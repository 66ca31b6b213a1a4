import { createHmac, randomBytes } from 'node:crypto';
import { createCollectingLog } from '@portcullis/testing';
import { describe, expect, it } from 'vitest';
import type { EndpointRecord } from '../store/types.js';
import { checkCaptureSignature } from './capture-signature.js';
import { createSecretBox } from './secret-box.js';

const box = createSecretBox(randomBytes(32));
const endpoint = (o: Partial<EndpointRecord> = {}): EndpointRecord => ({
  id: 'ZW5kcG9pbnQtZm9yLXNpZ25hdHVyZXM',
  name: '',
  kind: 'anonymous',
  tokenSha256: '',
  ownerId: '',
  resource: '',
  createdAt: '',
  retention: { maxRequests: 1, maxAgeMs: 1 },
  forward: [],
  ...o,
});
const body = Buffer.from('{}');
const request = {
  rawHeaders: ['X-Hub-Signature-256', `sha256=${createHmac('sha256', 's').update(body).digest('hex')}`],
  body,
  nowMs: 0,
};

describe('the capture path’s signature check', () => {
  it('is undefined (not checked) without a preset, and checks with one', () => {
    const { log, lines } = createCollectingLog();
    expect(checkCaptureSignature(endpoint(), { secrets: box, log }, request)).toBeUndefined();
    expect(lines).toEqual([]);
    const e = endpoint();
    const signature = { preset: { provider: 'github' as const }, sealedSecret: box.seal('s', e.id) };
    expect(checkCaptureSignature({ ...e, signature }, { secrets: box, log }, request)).toEqual({
      status: 'verified',
      provider: 'github',
    });
  });

  it('never throws: a secret sealed with another key, or no key, is not checked and logged', () => {
    const { log, lines } = createCollectingLog();
    const e = endpoint();
    const sealedElsewhere = createSecretBox(randomBytes(32)).seal('s', e.id);
    const signature = { preset: { provider: 'github' as const }, sealedSecret: sealedElsewhere };
    expect(checkCaptureSignature({ ...e, signature }, { secrets: box, log }, request)).toBeUndefined();
    expect(checkCaptureSignature({ ...e, signature }, { secrets: undefined, log }, request)).toBeUndefined();
    expect(lines.map((l) => [l['@message'], l.endpointId])).toEqual([
      ['signature not checked', e.id],
      ['signature not checked', e.id],
    ]);
    expect(lines[1]?.err).toMatchObject({ message: 'INBOX_SECRETS_KEY is not set' });
    expect(JSON.stringify(lines)).not.toContain('"s"');
  });
});
