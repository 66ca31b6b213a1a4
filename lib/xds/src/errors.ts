import { defineError, type ErrorClass } from '@portcullis/kit';

/** `setResources` was given two resources with the same name in one type. */
export class DuplicateResourceError extends defineError('XDS_DUPLICATE_RESOURCE') {
  constructor(
    readonly typeUrl: string,
    readonly resourceName: string,
  ) {
    super(`${typeUrl}: resource "${resourceName}" appears more than once`);
  }
}

/** `firstUpdate()` of a client closed before every type had been ACKed once. */
export class XdsClientClosedError extends defineError(
  'XDS_CLIENT_CLOSED',
  500,
  'xDS client closed before the first update of every type',
) {}

/** This package's registry: each class with its code and status (500: never answered as itself). */
export const XDS_ERRORS: readonly ErrorClass[] = [DuplicateResourceError, XdsClientClosedError];
