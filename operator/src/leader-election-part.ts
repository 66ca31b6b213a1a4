import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger, Part } from '@portcullis/kit';
import { LeaderElector } from './leader-election.js';
import type { OperatorMetrics } from './metrics.js';
import { ensureKeysSecret } from './secrets.js';
import type { Settings } from './settings.js';

export interface Leadership {
  /** Whether this replica writes statuses: always, unless it runs on Kubernetes with leader election on. */
  isLeader: () => boolean;
  /** Undefined when there is no election (directory mode, or `enabled` off). */
  part: Part | undefined;
}

/**
 * Leader election among the replicas. On taking the lease the leader ensures the keys Secret and calls
 * `onStartedLeading` (to reconcile and so write every status).
 */
export function createLeadership(o: {
  settings: Pick<Settings, 'leaderElection' | 'namespace' | 'identity' | 'keysSecretName'>;
  kubeConfig: KubeConfig | undefined;
  metrics: OperatorMetrics;
  log: Logger;
  onStartedLeading: () => void;
}): Leadership {
  const { settings, kubeConfig, metrics, log } = o;
  const le = settings.leaderElection;
  if (!kubeConfig || !le.enabled) return { isLeader: () => true, part: undefined };
  const elector = new LeaderElector({
    kubeConfig,
    namespace: settings.namespace,
    leaseName: le.leaseName,
    identity: settings.identity,
    leaseDurationMs: le.leaseDurationMs,
    renewDeadlineMs: le.renewDeadlineMs,
    retryPeriodMs: le.retryPeriodMs,
    log,
    onStartedLeading: () => {
      metrics.leader.set(1);
      void ensureKeysSecret({
        kubeConfig,
        namespace: settings.namespace,
        name: settings.keysSecretName,
        log,
      }).catch((err: unknown) => log.error({ err }, 'keys secret not ensured'));
      o.onStartedLeading();
    },
    onStoppedLeading: () => metrics.leader.set(0),
  });
  return {
    isLeader: () => elector.isLeader(),
    part: { name: 'leader election', start: () => elector.start(), close: () => elector.stop() },
  };
}
