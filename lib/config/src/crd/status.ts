import { int, list, obj, str, type Schema } from './schema.js';
import type { ShadowReport } from './shadow-report.js';

/** A `metav1.Condition`, as `status.conditions` holds it. */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  observedGeneration: number;
  lastTransitionTime: string;
}

/** `status` of every Portcullis resource; `statusSchema` is its schema. */
export interface ResourceStatus {
  observedGeneration?: number;
  conditions?: Condition[];
  /** RateLimitConfig only: written by the shadow-mode report. */
  shadowReport?: ShadowReport;
}

/** `status` as every Portcullis resource has it: `metav1.Condition`s and the generation they describe. */
export const statusSchema = (extra: Record<string, Schema> = {}): Schema =>
  obj({
    observedGeneration: int({ format: 'int64', minimum: 0 }),
    conditions: list(
      obj(
        {
          type: str({
            maxLength: 316,
            pattern:
              '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
          }),
          status: str({ enum: ['True', 'False', 'Unknown'] }),
          observedGeneration: int({ format: 'int64', minimum: 0 }),
          lastTransitionTime: str({ format: 'date-time' }),
          reason: str({ maxLength: 1024, minLength: 1, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$' }),
          message: str({ maxLength: 32768 }),
        },
        { required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'] },
      ),
      { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'], maxItems: 8 },
    ),
    ...extra,
  });
