import type { ForwardTarget } from '@portcullis/config';
import { describe, expect, it } from 'vitest';
import type { Capture } from '../contract/capture-records.js';
import { buildForwardRequest, forwardHeaders } from './forward-request.js';

const capture = (url: string, nestedPath: string): Capture => ({
  id: '1-0',
  receivedAt: 1,
  method: 'POST',
  url,
  nestedPath,
  httpVersion: '1.1',
  rawHeaders: ['Host', 'inbox.example', 'Content-Length', '2'],
  remoteAddress: '203.0.113.9',
  body: Buffer.from('{}'),
  bodySha256: '',
});
const target = (url: string, pathMode: ForwardTarget['pathMode']): ForwardTarget => ({
  url,
  pathMode,
  enabled: true,
  timeoutSeconds: 10,
  maxAttempts: 8,
  initialDelaySeconds: 30,
  maxDelaySeconds: 3600,
  maxConcurrent: 32,
});

describe('buildForwardRequest', () => {
  it('appends the raw nested path and query (never decoded)', () => {
    const c = capture('/api/hook/ID/a/%2e%2e/b?x=%2F&x=2', '/a/%2e%2e/b');
    expect(buildForwardRequest(c, target('https://t.example/hooks/', 'append')).path).toBe(
      '/hooks/a/%2e%2e/b?x=%2F&x=2',
    );
  });
  it('sends to exactly the target URL in exact mode, plus the query after its own', () => {
    const c = capture('/api/hook/ID/a?x=1', '/a');
    expect(buildForwardRequest(c, target('https://t.example/in?k=v', 'exact')).path).toBe('/in?k=v&x=1');
    expect(buildForwardRequest(capture('/api/hook/ID', ''), target('https://t.example', 'append')).path).toBe(
      '/',
    );
  });
});

describe('forwardHeaders', () => {
  it('drops hop-by-hop headers and those Connection names, rewrites Host, recomputes the length in place', () => {
    const raw = [
      'Host',
      'inbox',
      'Transfer-Encoding',
      'chunked',
      'Connection',
      'X-Private',
      'X-Private',
      '1',
    ].concat(['keep-alive', 'timeout=5', 'X-A', 'a', 'x-a', 'b', 'Upgrade', 'h2c', 'TE', 'trailers']);
    expect(forwardHeaders(raw, { host: 't.example:8443', bodyBytes: 7 })).toEqual([
      ...['Host', 't.example:8443', 'Content-Length', '7', 'X-A', 'a', 'x-a', 'b'],
      ...['X-Forwarded-Host', 'inbox'],
    ]);
  });
  it('adds no Content-Length to a request that had neither a body nor framing', () => {
    expect(forwardHeaders(['Accept', '*/*'], { host: 't', bodyBytes: 0 })).toEqual([
      ...['Host', 't', 'Accept', '*/*'],
    ]);
  });
});
