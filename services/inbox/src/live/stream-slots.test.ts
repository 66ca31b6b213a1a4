import { describe, expect, it } from 'vitest';
import { StreamsFullError, TooManyStreamsError } from '../errors.js';
import { createStreamSlots, type StreamRefusal } from './stream-slots.js';

describe('stream slots', () => {
  const make = (refused: StreamRefusal[]) =>
    createStreamSlots({ maxStreams: 3, maxStreamsPerAddress: 2, onRefused: (r) => refused.push(r) });

  it('refuses a third stream from one address, and takes it again once one is given back', () => {
    const refused: StreamRefusal[] = [];
    const slots = make(refused);
    const first = slots.take('10.0.0.1');
    slots.take('10.0.0.1');
    expect(() => slots.take('10.0.0.1')).toThrow(TooManyStreamsError);
    first();
    first(); // twice gives back one slot only
    slots.take('10.0.0.1');
    expect(() => slots.take('10.0.0.1')).toThrow('at most 2 live streams may be open from one address');
    expect(refused).toEqual(['address', 'address']);
  });

  it('refuses a stream beyond the process bound, whatever its address', () => {
    const refused: StreamRefusal[] = [];
    const slots = make(refused);
    const release = slots.take('a');
    slots.take('b');
    slots.take('c');
    expect(() => slots.take('d')).toThrow(StreamsFullError);
    release();
    slots.take('d');
    expect(refused).toEqual(['process']);
  });
});
