import { RequestError } from '../errors.js';

/**
 * How much one decision may ask for (`RATELIMIT_MAX_DESCRIPTORS`, `RATELIMIT_MAX_DESCRIPTOR_ENTRIES`): both
 * decoders count while they read and refuse at the first one past a bound, before any of the work
 * (mapping, matching, counting) the rest would cost.
 */
export interface RequestBounds {
  maxDescriptors: number;
  maxDescriptorEntries: number;
}

/** Generous for Envoy, which sends one descriptor per rate-limit action list, a few entries each. */
export const DEFAULT_REQUEST_BOUNDS: Readonly<RequestBounds> = {
  maxDescriptors: 1000,
  maxDescriptorEntries: 100,
};

/** Throws a `RequestError` naming the first descriptor past `RATELIMIT_MAX_DESCRIPTORS` when there are `count`. */
export function checkDescriptorCount(count: number, bounds: RequestBounds): void {
  if (count <= bounds.maxDescriptors) return;
  throw new RequestError(
    `descriptors[${bounds.maxDescriptors}]: more than ${bounds.maxDescriptors} descriptors in one request (RATELIMIT_MAX_DESCRIPTORS)`,
  );
}

/**
 * Throws a `RequestError` naming the first entry past `RATELIMIT_MAX_DESCRIPTOR_ENTRIES` when descriptor
 * `descriptor` has `count`.
 */
export function checkEntryCount(descriptor: number, count: number, bounds: RequestBounds): void {
  if (count <= bounds.maxDescriptorEntries) return;
  throw new RequestError(
    `descriptors[${descriptor}].entries[${bounds.maxDescriptorEntries}]: more than ${bounds.maxDescriptorEntries} entries in one descriptor (RATELIMIT_MAX_DESCRIPTOR_ENTRIES)`,
  );
}
