import { UNIT_SECONDS } from '@portcullis/config';
import type { Limit } from '../config/rule-set.js';

/** A fixed-window limit per minute, unnamed and enforced, with `o` over it (for the limiter's unit tests). */
export function limitOf(o: Partial<Limit> & Pick<Limit, 'requestsPerUnit'>): Limit {
  const unit = o.unit ?? 'MINUTE';
  return {
    unit,
    unitSeconds: UNIT_SECONDS[unit],
    name: undefined,
    shadowMode: false,
    stats: undefined,
    algorithm: 'fixed_window',
    burst: undefined,
    keySuffix: '',
    ...o,
  };
}
