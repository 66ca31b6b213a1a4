/** A monotonically increasing count; a plain field so the hot path pays one addition. */
export interface StatCounter {
  value: number;
}
