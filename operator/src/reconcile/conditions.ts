import type { Condition, ResourceStatus } from '@portcullis/config';
import type { Resource } from '../resources.js';
import type { Outcome } from './types.js';

/**
 * The status an outcome should show: `Accepted` says whether the current generation is valid and free of
 * conflicts; `Ready` whether some generation of it is being served; `ResolvedRefs` (Gateway API's name),
 * only on a resource that names a Secret, whether it was read. A condition keeps its `lastTransitionTime`
 * while its status stays the same.
 */
export function desiredStatus(outcome: Outcome, now: string): ResourceStatus {
  const { resource, rejection, servedGeneration, refs } = outcome;
  const generation = resource.metadata.generation;
  const accepted = rejection
    ? condition('Accepted', [false, rejection.reason], rejection.message)
    : condition('Accepted', [true, 'Accepted'], 'the specification is valid');
  const ready =
    servedGeneration === undefined
      ? condition('Ready', [false, 'NotServed'], 'no generation of this resource is served')
      : servedGeneration === generation
        ? condition('Ready', [true, 'Served'], `generation ${generation} is served`)
        : condition(
            'Ready',
            [true, 'ServingPrevious'],
            `generation ${servedGeneration} is still served; generation ${generation} was rejected`,
          );
  const previous = resource.status?.conditions ?? [];
  const settle = (c: Omit<Condition, 'lastTransitionTime' | 'observedGeneration'>): Condition => {
    const before = previous.find((p) => p.type === c.type);
    return {
      ...c,
      observedGeneration: generation,
      lastTransitionTime: before && before.status === c.status ? before.lastTransitionTime : now,
    };
  };
  const resolved =
    refs &&
    (refs.resolved
      ? condition('ResolvedRefs', [true, 'ResolvedRefs'], refs.message)
      : condition('ResolvedRefs', [false, refs.reason], refs.message));
  return {
    observedGeneration: generation,
    conditions: [settle(accepted), settle(ready), ...(resolved ? [settle(resolved)] : [])],
  };
}

function condition(
  type: string,
  [ok, reason]: [boolean, string],
  message: string,
): Omit<Condition, 'lastTransitionTime' | 'observedGeneration'> {
  return { type, status: ok ? 'True' : 'False', reason, message };
}

/** True when writing `desired` would change what the resource shows. */
export function isStatusChanged(resource: Resource, desired: ResourceStatus): boolean {
  return JSON.stringify(normalise(resource.status)) !== JSON.stringify(normalise(desired));
}

function normalise(status: ResourceStatus | undefined): unknown {
  return {
    observedGeneration: status?.observedGeneration,
    conditions: (status?.conditions ?? [])
      .map((c) => [c.type, c.status, c.reason, c.message, c.observedGeneration, c.lastTransitionTime])
      .sort(),
  };
}
