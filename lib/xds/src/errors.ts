import { PortcullisError } from '@portcullis/kit';

/** `setResources` was given two resources with the same name in one type. */
export class DuplicateResourceError extends PortcullisError {
  readonly code = 'XDS_DUPLICATE_RESOURCE';

  constructor(
    readonly typeUrl: string,
    readonly resourceName: string,
  ) {
    super(`${typeUrl}: resource "${resourceName}" appears more than once`);
  }
}

/** `firstUpdate()` of a client closed before every type had been ACKed once. */
export class XdsClientClosedError extends PortcullisError {
  readonly code = 'XDS_CLIENT_CLOSED';

  constructor() {
    super('xDS client closed before the first update of every type');
  }
}
