import { StreamsFullError, TooManyStreamsError } from '../errors.js';

export type StreamRefusal = 'address' | 'process';

/** The live streams a process holds open, bounded in all and per client address. */
export interface StreamSlots {
  /**
   * Takes a slot for a stream from `address`; returns how to give it back (once is enough, more is
   * harmless). Throws `TooManyStreamsError` or `StreamsFullError` when there is none, after `onRefused`.
   */
  take(address: string): () => void;
}

export function createStreamSlots(o: {
  maxStreams: number;
  maxStreamsPerAddress: number;
  onRefused: (reason: StreamRefusal) => void;
}): StreamSlots {
  const byAddress = new Map<string, number>();
  let open = 0;
  return {
    take(address) {
      const held = byAddress.get(address) ?? 0;
      if (held >= o.maxStreamsPerAddress) {
        o.onRefused('address');
        throw new TooManyStreamsError(o.maxStreamsPerAddress);
      }
      if (open >= o.maxStreams) {
        o.onRefused('process');
        throw new StreamsFullError(o.maxStreams);
      }
      open++;
      byAddress.set(address, held + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        open--;
        const left = (byAddress.get(address) ?? 1) - 1;
        if (left === 0) byAddress.delete(address);
        else byAddress.set(address, left);
      };
    },
  };
}
