import type { CaptureSummary } from '../api.js';

const TEXT = { verified: 'verified', failed: 'failed', not_checked: 'not checked' } as const;

/**
 * Whether a capture's badge says something: a check's outcome always; "not checked" only where the endpoint
 * now checks signatures (the capture came before its preset).
 */
export const isBadgeShown = (signature: CaptureSummary['signature'], signed: boolean): boolean =>
  signature.status !== 'not_checked' || signed;

/** A capture's signature as checked when it arrived; the title says why a check failed. */
export function SignatureBadge({ signature }: { signature: CaptureSummary['signature'] }) {
  const title =
    signature.status === 'not_checked'
      ? 'Signature not checked: the endpoint had no signature preset'
      : signature.status === 'verified'
        ? `Signature verified (${signature.provider})`
        : `Signature failed (${signature.provider}): ${signature.message}`;
  return (
    <span class={`sig sig-${signature.status}`} title={title} aria-label={title}>
      {TEXT[signature.status]}
    </span>
  );
}
