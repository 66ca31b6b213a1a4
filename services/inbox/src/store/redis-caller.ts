import { createRedisCaller } from '@portcullis/redis';
import { StoreUnavailableError } from '../errors.js';

/** Redis calls and batches whose failures become `StoreUnavailableError` (the cause kept). */
export const { call: callRedis, exec: execRedis } = createRedisCaller(
  'inbox store',
  (message, cause) => new StoreUnavailableError(message, { cause }),
);
