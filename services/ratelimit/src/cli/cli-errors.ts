import { defineError } from '@portcullis/kit';

/** Bad flags: exit 2, as Go's flag package (and so upstream's client) does. */
export class UsageError extends defineError('USAGE') {}
