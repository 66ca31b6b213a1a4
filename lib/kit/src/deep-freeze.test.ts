import { describe, expect, it } from 'vitest';
import { deepFreeze } from './deep-freeze.js';

describe('deepFreeze', () => {
  it('freezes nested objects and arrays', () => {
    const o = deepFreeze({ a: { b: 1 }, list: [{ c: 2 }] });
    expect(() => {
      o.a.b = 2;
    }).toThrow(TypeError);
    expect(() => (o.list as Array<{ c: number }>).push({ c: 3 })).toThrow(TypeError);
    expect(() => {
      (o.list[0] as { c: number }).c = 3;
    }).toThrow(TypeError);
    expect(o).toEqual({ a: { b: 1 }, list: [{ c: 2 }] });
  });

  it('refuses a Map, which freezing would leave writable', () => {
    expect(() => deepFreeze({ m: new Map([['a', 1]]) })).toThrow(
      'deepFreeze: a Map or Set stays writable through its methods; use a plain object',
    );
  });
});
