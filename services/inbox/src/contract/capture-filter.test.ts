import { describe, expect, it } from 'vitest';
import { hasFilterParams, matchesCapture, parseCaptureFilter, type CaptureFacts } from './capture-filter.js';

const parse = (query: string) => parseCaptureFilter(new URLSearchParams(query), { unknown: 'refuse' });
const facts = (o: Partial<CaptureFacts> = {}): CaptureFacts => ({
  id: '1700000000000-0',
  method: 'POST',
  nestedPath: '/a/b.json',
  query: 'x=1',
  rawHeaders: ['Content-Type', 'application/json'],
  body: new TextEncoder().encode('{"Name":"Zoë"}'),
  ...o,
});
const matches = (query: string, f: CaptureFacts = facts()): boolean => {
  const { filter, problems } = parse(query);
  if (!filter) throw new Error(problems.join('; '));
  return matchesCapture(filter, f);
};

describe('capture filter', () => {
  it('knows a filter from page parameters', () => {
    expect(hasFilterParams(new URLSearchParams('limit=5&before=1-0'))).toBe(false);
    expect(hasFilterParams(new URLSearchParams('limit=5&q='))).toBe(true);
  });

  it('matches a path pattern on the whole nested path, * for any characters, dots literal', () => {
    expect(matches('path=/a/*')).toBe(true);
    expect(matches('path=/a/b.json')).toBe(true);
    expect(matches('path=/a/bxjson')).toBe(false);
    expect(matches('path=/a')).toBe(false);
    expect(matches('path=*.json')).toBe(true);
    expect(parse('path=a/*').problems).toEqual(['path: expected a nested path starting with / or *']);
  });

  it('reads the body as UTF-8 and compares without case', () => {
    expect(matches('q=zoË')).toBe(true);
    expect(matches('q=zoe')).toBe(false);
    expect(matches('q=name', facts({ body: new Uint8Array([0xff, 0x6e, 0x61, 0x6d, 0x65]) }))).toBe(true);
  });

  it('matches the time range on the request id, inclusive', () => {
    expect(matches('from=1700000000000&to=1700000000000')).toBe(true);
    expect(matches('from=2023-11-14T22:13:20.001Z')).toBe(false);
    expect(matches('to=2023-11-14T22:13:20Z')).toBe(true);
    expect(matches('from=1960-01-01T00:00:00Z')).toBe(true);
    expect(parse('to=9999999999999999').problems).toEqual([
      'to: expected an ISO 8601 time or milliseconds since the epoch',
    ]);
  });

  it('lists every problem, and refuses unknown names where asked', () => {
    expect(parse('method=P OST&header=a b&from=2&to=1&colour=red&q=a&q=b').problems).toEqual([
      'method: expected names such as POST,PUT',
      'header: expected name or name:value',
      'colour: unknown; expected one of method, path, header, query, q, from, to, forwarding',
      'q: given twice',
      'from: after to',
    ]);
    expect(parseCaptureFilter(new URLSearchParams('colour=red'), { unknown: 'ignore' }).problems).toEqual([]);
  });
});
