import { CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '@portcullis/kit';
import type { Counter } from 'prom-client';
import { desiredStatus, isStatusChanged } from '../reconcile/conditions.js';
import type { Outcome, Rejection } from '../reconcile/types.js';
import { resourceName } from '../resources.js';
import { forEachBounded } from './bounded-each.js';
import { patchStatus } from './patch-status.js';

/** Where reconcile results go: the status subresource and Events, or just the log in directory mode. */
export interface StatusSink {
  write(outcomes: readonly Outcome[]): Promise<void>;
  /** Forgets what it keeps about resources that are gone: those `present` does not have, by uid. */
  retain(present: { has(uid: string): boolean }): void;
}

const COMPONENT = 'portcullis-operator';
const STATUS_WRITES_IN_FLIGHT = 16;
const EVENT_REASONS: Readonly<Record<Rejection['reason'], string>> = {
  Invalid: 'InvalidSpec',
  NotSupportedOverXds: 'NotSupportedOverXds',
  Conflict: 'Conflict',
};

/**
 * Writes `status` through the status subresource (a merge patch of status only, so spec edits in flight
 * are never overwritten) when it would change, and a Warning Event when a resource becomes rejected or its
 * rejection changes. Failures are logged and retried on the next reconcile.
 *
 * Every reconcile hands over every resource's outcome; one already settled for the same object (its
 * `resourceVersion`) costs a lookup, so a reconcile after one edit among 10,000 compares one status, not all.
 */
export class KubernetesStatusSink implements StatusSink {
  private readonly objects: CustomObjectsApi;
  private readonly core: CoreV1Api;
  /** The last rejection announced per uid, so an Event is sent once per change, not per reconcile. */
  private readonly announced = new Map<string, string>();
  /** Per uid, the outcome (`settledKey`) whose status was last found written or written. */
  private readonly settled = new Map<string, string>();
  private readonly log: Logger;

  constructor(
    private readonly o: {
      kubeConfig: KubeConfig;
      log: Logger;
      /** Status patches by result, `written` or `failed`. */
      writes?: Counter<'result'>;
      now?: () => Date;
    },
  ) {
    this.objects = o.kubeConfig.makeApiClient(CustomObjectsApi);
    this.core = o.kubeConfig.makeApiClient(CoreV1Api);
    this.log = o.log.child({ component: 'status-writer' });
  }

  async write(outcomes: readonly Outcome[]): Promise<void> {
    const now = (this.o.now?.() ?? new Date()).toISOString().replace(/\.\d+Z$/, 'Z');
    const unsettled = outcomes
      .map((outcome) => ({ outcome, key: settledKey(outcome) }))
      .filter(
        ({ outcome, key }) => key === undefined || this.settled.get(outcome.resource.metadata.uid) !== key,
      );
    // bounded: the first reconcile of 10,000 resources would otherwise open 10,000 requests at once
    await forEachBounded(unsettled, STATUS_WRITES_IN_FLIGHT, async ({ outcome, key }) => {
      const status = desiredStatus(outcome, now);
      let settled = true;
      if (isStatusChanged(outcome.resource, status)) {
        settled = await patchStatus(this.objects, outcome.resource, {
          status,
          log: this.log,
          what: 'status',
        });
        this.o.writes?.inc({ result: settled ? 'written' : 'failed' });
      }
      if (settled && key !== undefined) this.settled.set(outcome.resource.metadata.uid, key);
      await this.announce(outcome, now);
    });
  }

  retain(present: { has(uid: string): boolean }): void {
    forgetGone(present, this.settled, this.announced);
  }

  private async announce(outcome: Outcome, now: string): Promise<void> {
    const { resource: r, rejection } = outcome;
    const key = rejection ? `${r.metadata.generation}:${rejection.reason}:${rejection.message}` : '';
    if ((this.announced.get(r.metadata.uid) ?? '') === key) return;
    this.announced.set(r.metadata.uid, key);
    if (!rejection) return;
    try {
      await this.core.createNamespacedEvent({
        namespace: r.metadata.namespace,
        body: {
          metadata: { generateName: `${r.metadata.name}.`, namespace: r.metadata.namespace },
          involvedObject: {
            apiVersion: r.apiVersion,
            kind: r.kind,
            name: r.metadata.name,
            namespace: r.metadata.namespace,
            uid: r.metadata.uid,
            ...(r.metadata.resourceVersion ? { resourceVersion: r.metadata.resourceVersion } : {}),
          },
          type: 'Warning',
          reason: EVENT_REASONS[rejection.reason],
          message: rejection.message.slice(0, 1024),
          source: { component: COMPONENT },
          reportingComponent: COMPONENT,
          reportingInstance: COMPONENT,
          count: 1,
          firstTimestamp: new Date(now),
          lastTimestamp: new Date(now),
        },
      });
    } catch (err: unknown) {
      this.log.warn({ resource: `${r.kind}/${resourceName(r)}`, err }, 'event not recorded');
    }
  }
}

/**
 * What an outcome's status depends on, for one version of the object; undefined without a
 * `resourceVersion`, when a status changed by someone else could not be told apart.
 */
function settledKey({ resource, rejection, servedGeneration, refs }: Outcome): string | undefined {
  const version = resource.metadata.resourceVersion;
  if (!version) return undefined;
  return JSON.stringify([version, rejection?.reason, rejection?.message, servedGeneration, refs]);
}

function forgetGone(present: { has(uid: string): boolean }, ...byUid: Array<Map<string, unknown>>): void {
  for (const map of byUid) for (const uid of map.keys()) if (!present.has(uid)) map.delete(uid);
}

/** Directory mode has nowhere to write status: rejections are logged once per change instead. */
export class LogStatusSink implements StatusSink {
  private readonly announced = new Map<string, string>();

  constructor(private readonly log: Logger) {}

  retain(present: { has(uid: string): boolean }): void {
    forgetGone(present, this.announced);
  }

  write(outcomes: readonly Outcome[]): Promise<void> {
    for (const { resource: r, rejection, servedGeneration } of outcomes) {
      const key = rejection ? `${rejection.reason}:${rejection.message}:${servedGeneration ?? ''}` : 'ok';
      if (this.announced.get(r.metadata.uid) === key) continue;
      this.announced.set(r.metadata.uid, key);
      const resource = `${r.kind}/${resourceName(r)}`;
      if (rejection)
        this.log.warn(
          { resource, reason: rejection.reason, problems: rejection.message.split('\n'), servedGeneration },
          'resource rejected',
        );
      else this.log.info({ resource, generation: r.metadata.generation }, 'resource accepted');
    }
    return Promise.resolve();
  }
}
