import type { Logger } from '@portcullis/kit';
import type { EndpointRecord } from '../store/types.js';
import type { SignatureCheck } from '../contract/capture-records.js';
import type { SecretBox } from './secret-box.js';
import { verifySignature, type SignedRequest } from './verify-signature.js';

/**
 * The capture path's check: undefined (not checked) when the endpoint has no preset, or when its secret
 * cannot be opened (another `INBOX_SECRETS_KEY`), which is logged. Never throws: a capture is stored and
 * answered whatever its signature.
 */
export function checkCaptureSignature(
  endpoint: EndpointRecord,
  o: { secrets: SecretBox | undefined; log: Logger },
  request: SignedRequest,
): SignatureCheck | undefined {
  const signature = endpoint.signature;
  if (!signature) return undefined;
  try {
    if (!o.secrets) throw new Error('INBOX_SECRETS_KEY is not set');
    return verifySignature(signature.preset, o.secrets.open(signature.sealedSecret, endpoint.id), request);
  } catch (err: unknown) {
    o.log.warn({ endpointId: endpoint.id, err }, 'signature not checked');
    return undefined;
  }
}
