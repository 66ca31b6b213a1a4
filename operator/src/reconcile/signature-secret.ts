import { signatureSecretProblem, type InboxEndpointSpec } from '@portcullis/config';
import type { RefsStatus, SecretLookup } from './types.js';

type SignatureRef = NonNullable<InboxEndpointSpec['signature']>;

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * An InboxEndpoint's signature secret: the key its `secretRef` names, of a Secret in its namespace, checked
 * as the inbox checks a secret set through its API. Without it the endpoint is still served, unchecked: a
 * missing Secret must not turn a receive URL into a 404 that makes a sender give up on it.
 */
export function readSignatureSecret(
  namespace: string,
  signature: SignatureRef,
  secrets: SecretLookup,
): { secret?: string; refs: RefsStatus } {
  const { name, key } = signature.secretRef;
  const where = `Secret ${namespace}/${name}`;
  const state = secrets.secret(namespace, name);
  if (!state) return refused('SecretNotFound', `${where} not found`);
  if ('error' in state) return refused('SecretNotReadable', `${where} could not be read: ${state.error}`);
  const bytes = state.data.get(key);
  if (!bytes) return refused('InvalidSecret', `${where} has no key '${key}'`);
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    return refused('InvalidSecret', `${where}: key '${key}' is not UTF-8 text`);
  }
  if (text.trim() !== text) {
    return refused(
      'InvalidSecret',
      `${where}: key '${key}' starts or ends with white space, so no signature would match ` +
        '(kubectl create secret --from-file keeps the file’s last newline; use --from-literal)',
    );
  }
  const problem = signatureSecretProblem(signature.preset.provider, text);
  if (problem) return refused('InvalidSecret', `${where}: key '${key}': ${problem}`);
  return { secret: text, refs: { resolved: true, message: `${where}, key '${key}', is read` } };
}

function refused(reason: Exclude<RefsStatus, { resolved: true }>['reason'], message: string) {
  return { refs: { resolved: false, reason, message } as const };
}
