import { PatchStrategy, setHeaderOptions, type CustomObjectsApi } from '@kubernetes/client-node';
import type { Logger } from '@portcullis/kit';
import { GROUP, PLURALS, VERSION, type ResourceStatus } from '@portcullis/config';
import { resourceName, type Resource } from '../resources.js';
import { codeOf } from '../kube-error-code.js';

/**
 * A merge patch of the given status fields through the status subresource: spec edits in flight and the
 * fields other writers own are left alone. Resolves with whether it got there; a resource deleted meanwhile
 * counts, as nothing is left to write. A failure is logged as `<what> not written`.
 */
export async function patchStatus(
  objects: CustomObjectsApi,
  r: Resource,
  o: { status: Partial<ResourceStatus>; log: Logger; what: string },
): Promise<boolean> {
  const resource = `${r.kind}/${resourceName(r)}`;
  try {
    await objects.patchNamespacedCustomObjectStatus(
      {
        group: GROUP,
        version: VERSION,
        plural: PLURALS[r.kind],
        namespace: r.metadata.namespace,
        name: r.metadata.name,
        body: { status: o.status },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    o.log.debug({ resource }, `${o.what} written`);
    return true;
  } catch (err: unknown) {
    if (codeOf(err) === 404) return true;
    o.log.warn({ resource, err }, `${o.what} not written`);
    return false;
  }
}
