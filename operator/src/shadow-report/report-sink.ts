import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '@portcullis/kit';
import type { ShadowReport } from '@portcullis/config';
import { resourceName, type Resource } from '../resources.js';
import { patchStatus } from '../status/patch-status.js';

/** Where a RateLimitConfig's report goes; resolves with whether it got there. */
export interface ShadowReportSink {
  write(resource: Resource, report: ShadowReport): Promise<boolean>;
}

/**
 * `status.shadowReport` through the status subresource, a merge patch of that field only: the conditions
 * the reconciles write are left alone, and the rules list is replaced whole. A resource deleted meanwhile
 * is no failure.
 */
export class KubernetesShadowReportSink implements ShadowReportSink {
  private readonly objects: CustomObjectsApi;

  constructor(
    kubeConfig: KubeConfig,
    private readonly log: Logger,
  ) {
    this.objects = kubeConfig.makeApiClient(CustomObjectsApi);
  }

  write(r: Resource, report: ShadowReport): Promise<boolean> {
    return patchStatus(this.objects, r, {
      status: { shadowReport: report },
      log: this.log,
      what: 'shadow report',
    });
  }
}

/** Directory mode has no status: a report that changed is logged. */
export class LogShadowReportSink implements ShadowReportSink {
  constructor(private readonly log: Logger) {}

  write(r: Resource, report: ShadowReport): Promise<boolean> {
    this.log.info({ resource: `${r.kind}/${resourceName(r)}`, shadowReport: report }, 'shadow report');
    return Promise.resolve(true);
  }
}
