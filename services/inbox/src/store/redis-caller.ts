import { createRedisCaller } from '@portcullis/redis';
import { UnavailableError } from '@portcullis/kit';

/** Redis calls and batches whose failures become `UnavailableError` (the cause kept). */
export const { call: callRedis, exec: execRedis } = createRedisCaller(
  'inbox store',
  (message, cause) => new UnavailableError(message, { cause }),
);
