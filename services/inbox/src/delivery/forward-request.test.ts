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

const built = (c: Capture, t: ForwardTarget) => {
  const b = buildForwardRequest(c, t);
  if (!b.sendable) throw new Error(b.reason);
  return b.request;
};

describe('buildForwardRequest', () => {
  it('appends the raw nested path and query (never decoded)', () => {
    const c = capture('/api/hook/ID/a/%2F/b%2e?x=%2F&x=2', '/a/%2F/b%2e');
    expect(built(c, target('https://t.example/hooks/', 'append')).path).toBe('/hooks/a/%2F/b%2e?x=%2F&x=2');
  });
  it('sends to exactly the target URL in exact mode, plus the query after its own', () => {
    const c = capture('/api/hook/ID/a?x=1', '/a');
    expect(built(c, target('https://t.example/in?k=v', 'exact')).path).toBe('/in?k=v&x=1');
    expect(built(capture('/api/hook/ID', ''), target('https://t.example', 'append')).path).toBe('/');
  });

  // issue 34: `/api/hook/<id>/../../admin` was sent on as `/target/../../admin`
  it.each([
    '/../../admin',
    '/a/..',
    '/%2e%2e/admin',
    '/%2E%2e/admin',
    '/.%2e/admin',
    '/..;/..;/admin',
    '/..;jsessionid=x/admin',
    '/%2e%2e;x/admin',
    '/a%2f..%2fadmin',
    '/a%5c..%5cadmin',
    '/a\\..\\admin',
    '/%252e%252e/admin',
  ])('never appends a nested path with a dot-dot segment: %s', (nested) => {
    const c = capture(`/api/hook/ID${nested}?drop=all`, nested);
    expect(buildForwardRequest(c, target('https://t.example/target', 'append'))).toEqual({
      sendable: false,
      reason: "the nested path has a '..' segment (or %2e%2e, or ..;), which could leave the target's path",
    });
    // in exact mode the nested path is not sent
    expect(built(c, target('https://t.example/target', 'exact')).path).toBe('/target?drop=all');
  });
  it.each(['/a/./b', '/a..b/c', '/...', '/..a', '/a;..'])('appends a path without one: %s', (nested) => {
    const c = capture(`/api/hook/ID${nested}`, nested);
    expect(built(c, target('https://t.example/t', 'append')).path).toBe(`/t${nested}`);
  });

  // issue 34: node:http throws on these; the worker retried such a capture every ~3 s, forever
  it('says why a capture node:http cannot send is not sent, without its values', () => {
    const withHeaders = (rawHeaders: string[]): Capture => ({ ...capture('/api/hook/ID', ''), rawHeaders });
    const t = target('https://t.example/t', 'append');
    expect(buildForwardRequest(withHeaders(['X-A', '€']), t)).toEqual({
      sendable: false,
      reason: 'header "X-A" cannot be sent: a control character or one beyond Latin-1 in its value',
    });
    expect(buildForwardRequest(withHeaders(['X A', '1']), t)).toMatchObject({ sendable: false });
    expect(buildForwardRequest(withHeaders(['X-A', 'caf\u00e9']), t)).toMatchObject({ sendable: true });
    expect(buildForwardRequest({ ...capture('/api/hook/ID', ''), method: 'GET /x' }, t)).toEqual({
      sendable: false,
      reason: 'the method is not an HTTP token',
    });
    expect(buildForwardRequest(capture('/api/hook/ID/€', '/€'), t)).toEqual({
      sendable: false,
      reason: 'the path or query has a character HTTP cannot carry unescaped',
    });
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
