import { CoordinationV1Api, V1MicroTime, type KubeConfig, type V1Lease } from '@kubernetes/client-node';
import type { Logger } from '@portcullis/kit';
import { codeOf } from './kube-error-code.js';

export interface LeaderElectionOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  leaseName: string;
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  log: Logger;
  onStartedLeading(): void;
  /** Called when renewing failed for the renew deadline; the caller should stop writing (and usually exit). */
  onStoppedLeading(): void;
  /** Local clock in milliseconds; tests move it. */
  now?: () => number;
}

/**
 * client-go's leader election on a `coordination.k8s.io/v1` Lease: try every retry period; take the lease
 * when its holder has not renewed for a lease duration as measured on this replica's clock (observed time,
 * not the server's timestamps, so clock skew cannot steal it); renew while leading; give up after the
 * renew deadline. Conflicts (409) mean another replica won the race.
 */
export class LeaderElector {
  private timer: NodeJS.Timeout | undefined;
  private attempt: Promise<void> | undefined;
  private leading = false;
  private stopped = false;
  private observed: { record: string; atMs: number } | undefined;
  private lastRenewMs = 0;
  private readonly api: CoordinationV1Api;
  private readonly log: Logger;
  private readonly now: () => number;

  constructor(private readonly o: LeaderElectionOptions) {
    this.api = o.kubeConfig.makeApiClient(CoordinationV1Api);
    this.log = o.log.child({ component: 'leader-election', lease: `${o.namespace}/${o.leaseName}` });
    this.now = o.now ?? Date.now;
  }

  isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    const loop = async (): Promise<void> => {
      this.attempt = this.tryOnce();
      await this.attempt;
      if (!this.stopped) this.timer = setTimeout(() => void loop(), this.o.retryPeriodMs);
    };
    void loop();
  }

  /**
   * Stops trying and, if the lease names this replica (leading, or stepped down with the API server out of
   * reach), releases it so another replica can take over at once. A renewal still in flight is waited for
   * first: released beside it, the release could read the lease before the renewal's write and then lose to
   * it (409), leaving the others to wait out the lease duration.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.attempt;
    this.leading = false;
    try {
      const lease = await this.read();
      if (lease?.spec?.holderIdentity === this.o.identity) {
        lease.spec.holderIdentity = '';
        await this.api.replaceNamespacedLease({
          namespace: this.o.namespace,
          name: this.o.leaseName,
          body: lease,
        });
      }
    } catch (err: unknown) {
      this.log.warn({ err }, 'lease not released');
    }
  }

  private async tryOnce(): Promise<void> {
    try {
      const acquired = await this.acquireOrRenew();
      if (acquired) {
        this.lastRenewMs = this.now();
        if (!this.leading) {
          this.leading = true;
          // taken by an attempt that was in flight when stop() came: stop() releases it, nothing starts
          if (this.stopped) return;
          this.log.info({ identity: this.o.identity }, 'started leading');
          this.o.onStartedLeading();
        }
        return;
      }
    } catch (err: unknown) {
      this.log.warn({ err }, 'lease not acquired or renewed');
    }
    if (this.leading && this.now() - this.lastRenewMs > this.o.renewDeadlineMs) {
      this.leading = false;
      this.log.error({ identity: this.o.identity }, 'stopped leading: renew deadline passed');
      this.o.onStoppedLeading();
    }
  }

  private async read(): Promise<V1Lease | undefined> {
    try {
      return await this.api.readNamespacedLease({ namespace: this.o.namespace, name: this.o.leaseName });
    } catch (err: unknown) {
      if (codeOf(err) === 404) return undefined;
      throw err;
    }
  }

  private async acquireOrRenew(): Promise<boolean> {
    const { namespace, leaseName: name, identity } = this.o;
    const leaseDurationSeconds = Math.ceil(this.o.leaseDurationMs / 1000);
    const lease = await this.read();
    const nowTime = new V1MicroTime(this.now());
    if (!lease) {
      await this.api.createNamespacedLease({
        namespace,
        body: {
          metadata: { name, namespace },
          spec: {
            holderIdentity: identity,
            leaseDurationSeconds,
            acquireTime: nowTime,
            renewTime: nowTime,
            leaseTransitions: 0,
          },
        },
      });
      return true;
    }
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    const record = JSON.stringify([holder, spec.renewTime, spec.acquireTime, spec.leaseTransitions]);
    if (this.observed?.record !== record) this.observed = { record, atMs: this.now() };
    const expired =
      this.now() - this.observed.atMs > (spec.leaseDurationSeconds ?? leaseDurationSeconds) * 1000;
    if (holder !== '' && holder !== identity && !expired) return false;
    const taking = holder !== identity;
    lease.spec = {
      ...spec,
      holderIdentity: identity,
      leaseDurationSeconds,
      renewTime: nowTime,
      ...(taking
        ? { acquireTime: nowTime, leaseTransitions: (spec.leaseTransitions ?? 0) + (holder === '' ? 0 : 1) }
        : {}),
    };
    try {
      await this.api.replaceNamespacedLease({ namespace, name, body: lease });
    } catch (err: unknown) {
      if (codeOf(err) === 409) return false;
      throw err;
    }
    return true;
  }
}
