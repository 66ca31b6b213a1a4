import { KINDS } from '@portcullis/config';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface OperatorMetrics {
  reconciles: Counter<'kind' | 'result'>;
  reconcileSeconds: Histogram;
  queueDepth: Gauge;
  statusWritesPending: Gauge;
  statusWrites: Counter<'result'>;
  pushes: Counter<'type'>;
  acks: Counter<'type'>;
  nacks: Counter<'type'>;
  responses: Counter<'type'>;
  responseBytes: Counter<'type'>;
  xdsClients: Gauge;
  leader: Gauge;
}

export function createOperatorMetrics(registry: Registry, clientCount: () => number): OperatorMetrics {
  const registers = [registry];
  const metrics: OperatorMetrics = {
    reconciles: new Counter({
      name: 'portcullis_operator_reconciles_total',
      help: 'Resources reconciled, by kind and result (accepted or rejected).',
      labelNames: ['kind', 'result'],
      registers,
    }),
    reconcileSeconds: new Histogram({
      name: 'portcullis_operator_reconcile_duration_seconds',
      help: 'Time to reconcile every resource and update the xDS snapshot.',
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
      registers,
    }),
    queueDepth: new Gauge({
      name: 'portcullis_operator_queue_depth',
      help: 'Resource changes seen and not yet reconciled.',
      registers,
    }),
    statusWritesPending: new Gauge({
      name: 'portcullis_operator_status_writes_pending',
      help: 'Reconciled resources whose status is waiting to be compared and written (the leader only).',
      registers,
    }),
    statusWrites: new Counter({
      name: 'portcullis_operator_status_writes_total',
      help: 'Status patches of the reconciled resources, by result (written or failed).',
      labelNames: ['result'],
      registers,
    }),
    pushes: new Counter({
      name: 'portcullis_operator_xds_pushes_total',
      help: 'New snapshot versions published, by resource type.',
      labelNames: ['type'],
      registers,
    }),
    acks: new Counter({
      name: 'portcullis_operator_xds_acks_total',
      help: 'xDS ACKs received.',
      labelNames: ['type'],
      registers,
    }),
    nacks: new Counter({
      name: 'portcullis_operator_xds_nacks_total',
      help: 'xDS NACKs received.',
      labelNames: ['type'],
      registers,
    }),
    responses: new Counter({
      name: 'portcullis_operator_xds_responses_total',
      help: 'xDS responses sent, each the whole resource set of its type for one stream.',
      labelNames: ['type'],
      registers,
    }),
    responseBytes: new Counter({
      name: 'portcullis_operator_xds_response_bytes_total',
      help: 'Encoded size of the xDS responses sent, in bytes.',
      labelNames: ['type'],
      registers,
    }),
    xdsClients: new Gauge({
      name: 'portcullis_operator_xds_clients',
      help: 'Open xDS streams.',
      registers,
      collect() {
        this.set(clientCount());
      },
    }),
    leader: new Gauge({ name: 'portcullis_operator_leader', help: '1 while this replica leads.', registers }),
  };
  // every kind's series from the start at 0, so increase() sees the first NACK or rejection (the chart's alerts)
  for (const kind of KINDS) {
    for (const counter of [metrics.pushes, metrics.acks, metrics.nacks]) counter.inc({ type: kind }, 0);
    for (const result of ['accepted', 'rejected']) metrics.reconciles.inc({ kind, result }, 0);
  }
  for (const result of ['written', 'failed']) metrics.statusWrites.inc({ result }, 0);
  return metrics;
}

/** The last path segment of a type URL, as a label: `RateLimitConfig`. */
export function typeLabel(typeUrl: string): string {
  return typeUrl.slice(typeUrl.lastIndexOf('.') + 1);
}
