import type { CaptureTail, LiveReader } from './types.js';

/** A tail of one endpoint over a reader of its own, which it closes. */
export function toCaptureTail(reader: LiveReader, endpointId: string): CaptureTail {
  return {
    async next(afterId, opts) {
      return (await reader.read(new Map([[endpointId, afterId]]), opts)).get(endpointId) ?? [];
    },
    close: () => reader.close(),
  };
}
