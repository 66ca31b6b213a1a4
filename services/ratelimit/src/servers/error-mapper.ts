import { createErrorMapper, createGrpcErrorMapper } from '@portcullis/kit';
import { RATELIMIT_ERRORS } from '../errors.js';

/** The one place errors become HTTP statuses and `{error, code}` bodies: kit's edge errors and this service's. */
export const toHttpError = createErrorMapper(RATELIMIT_ERRORS);

/** The one place errors become gRPC statuses; anything not in `RATELIMIT_ERRORS` is `INTERNAL`. */
export const toGrpcStatus = createGrpcErrorMapper(RATELIMIT_ERRORS);
