import type { Logger } from '@portcullis/kit';
import type { InboxStore } from '../store/types.js';

/**
 * The live streams that share tokens opened, so that revoking a share ends them: at once in the process
 * that revokes it, and within `recheckMs` in the others (each looks its open shares up again at that
 * interval, one read per endpoint). A stream that misses the re-check still cannot come back: every
 * reconnect is authorized afresh.
 */
export interface ShareStreams {
  /** Follows one stream; `end` finishes it. Returns how to stop following it (the stream closed). */
  add(stream: { endpointId: string; shareId: string; end: () => void }): () => void;
  /** Ends every stream of this process that the share opened. */
  revoke(endpointId: string, shareId: string): void;
  close(): void;
}

export function createShareStreams(o: { store: InboxStore; recheckMs: number; log: Logger }): ShareStreams {
  const open = new Set<{ endpointId: string; shareId: string; end: () => void }>();
  const revoke = (endpointId: string, shareId: string): void => {
    for (const s of [...open]) if (s.endpointId === endpointId && s.shareId === shareId) s.end();
  };
  const recheck = async (): Promise<void> => {
    const endpointIds = new Set([...open].map((s) => s.endpointId));
    for (const endpointId of endpointIds) {
      const live = new Set((await o.store.listShares(endpointId)).map((s) => s.id));
      for (const s of [...open]) if (s.endpointId === endpointId && !live.has(s.shareId)) s.end();
    }
  };
  const timer = setInterval(() => {
    if (open.size === 0) return;
    recheck().catch((err: unknown) => o.log.warn({ err }, 'share re-check failed'));
  }, o.recheckMs);
  timer.unref();
  return {
    add(stream) {
      open.add(stream);
      return () => open.delete(stream);
    },
    revoke,
    close: () => clearInterval(timer),
  };
}
