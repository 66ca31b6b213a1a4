/** A Redis Stream entry id, `<ms>-<seq>`: how captures are named, ordered and paged. */
const STREAM_ID = /^(\d{1,16})-(\d{1,16})$/;

export const ZERO_STREAM_ID = '0-0';

export function isStreamId(text: string): boolean {
  return STREAM_ID.test(text);
}

/** `[ms, seq]`; `[0, 0]` for anything that is not a stream id. */
export function parseStreamId(id: string): [number, number] {
  const m = STREAM_ID.exec(id);
  return m ? [Number(m[1]), Number(m[2])] : [0, 0];
}

/** Negative, zero or positive as `a` is before, equal to or after `b`. */
export function compareStreamIds(a: string, b: string): number {
  const [am, as] = parseStreamId(a);
  const [bm, bs] = parseStreamId(b);
  return am === bm ? as - bs : am - bm;
}
