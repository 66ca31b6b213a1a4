import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '@portcullis/kit';
import type { SecretLookup, SecretState } from '../reconcile/types.js';
import { codeOf } from '../kube-error-code.js';

const ABSENT = 'absent';
const PARALLEL_READS = 8;

/**
 * The Secrets that resources refer to, read from the API server by name (`get` only: the operator never
 * lists or watches Secrets, so it holds none it does not use). A reconcile looks Secrets up; `settle`
 * then reads those never read and forgets those no longer looked up. Every `refreshMs` the known ones are
 * read again and listeners hear of any change, which is how a rotated secret reaches the inbox.
 */
export class SecretReader implements SecretLookup {
  private readonly known = new Map<string, SecretState | typeof ABSENT>();
  private looked = new Set<string>();
  private missed = new Set<string>();
  private readonly listeners: Array<() => void> = [];
  private readonly api: CoreV1Api;
  private readonly log: Logger;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly o: { kubeConfig: KubeConfig; log: Logger; refreshMs: number }) {
    this.api = o.kubeConfig.makeApiClient(CoreV1Api);
    this.log = o.log.child({ component: 'secret-reader' });
  }

  secret(namespace: string, name: string): SecretState | undefined {
    const ref = `${namespace}/${name}`;
    this.looked.add(ref);
    const state = this.known.get(ref);
    if (state === undefined) this.missed.add(ref);
    return state === ABSENT ? undefined : state;
  }

  /** After a reconcile: true when it read Secrets that were looked up for the first time (reconcile again). */
  async settle(): Promise<boolean> {
    for (const ref of this.known.keys()) if (!this.looked.has(ref)) this.known.delete(ref);
    const missed = [...this.missed];
    this.looked = new Set();
    this.missed = new Set();
    await this.readAll(missed);
    return missed.length > 0;
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  start(): void {
    const refresh = async (): Promise<void> => {
      const before = new Map(this.known);
      await this.readAll([...before.keys()]);
      if ([...before].some(([ref, state]) => this.known.has(ref) && !sameState(state, this.known.get(ref)))) {
        for (const l of this.listeners.slice()) l();
      }
      this.timer = setTimeout(() => void refresh(), this.o.refreshMs);
    };
    this.timer = setTimeout(() => void refresh(), this.o.refreshMs);
  }

  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async readAll(refs: readonly string[]): Promise<void> {
    for (let i = 0; i < refs.length; i += PARALLEL_READS) {
      await Promise.all(refs.slice(i, i + PARALLEL_READS).map((ref) => this.read(ref)));
    }
  }

  private async read(ref: string): Promise<void> {
    const [namespace = '', name = ''] = ref.split('/');
    try {
      const secret = await this.api.readNamespacedSecret({ namespace, name });
      const data = new Map<string, Buffer>();
      for (const [key, value] of Object.entries(secret.data ?? {}))
        data.set(key, Buffer.from(value, 'base64'));
      this.known.set(ref, { data });
    } catch (err: unknown) {
      const code = codeOf(err);
      if (code === 404) {
        this.known.set(ref, ABSENT);
        return;
      }
      const previous = this.known.get(ref);
      // an outage keeps what was read: a secret in use is not dropped because the API server blinked
      if (previous !== undefined && previous !== ABSENT && 'data' in previous) {
        this.log.warn({ secret: ref, err }, 'secret not read again, keeping the last read');
        return;
      }
      const error =
        code === 403
          ? `the operator may not read Secrets in namespace ${namespace} (403 Forbidden)`
          : code !== undefined
            ? `the API server answered ${code}`
            : (err as Error).message;
      this.log.warn({ secret: ref, err }, 'secret not read');
      this.known.set(ref, { error });
    }
  }
}

function sameState(a: SecretState | typeof ABSENT, b: SecretState | typeof ABSENT | undefined): boolean {
  if (a === ABSENT || b === ABSENT || b === undefined) return a === b;
  if ('error' in a || 'error' in b) return 'error' in a && 'error' in b && a.error === b.error;
  return a.data.size === b.data.size && [...a.data].every(([k, v]) => b.data.get(k)?.equals(v) === true);
}
