import type { SignaturePreset } from '@portcullis/config';
import type { SignatureCheck, StoredSignature } from './capture-records.js';

/** A preset as the API shows it: its settings and that a secret is set, never the secret. */
export type SignatureView = SignaturePreset & { secretSet: true };

/** A capture's signature in the API: its check, or `not_checked` when its endpoint had no preset. */
export type CaptureSignature = SignatureCheck | { status: 'not_checked' };

export function toSignatureView(s: StoredSignature): SignatureView {
  return { ...s.preset, secretSet: true };
}

export function toCaptureSignature(check: SignatureCheck | undefined): CaptureSignature {
  return check ?? { status: 'not_checked' };
}
