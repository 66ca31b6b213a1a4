import type { Answer, JsonAnswer } from './pair.js';

// What two answers must agree on. proto3 makes a field left out and a field set to its default the same
// value, so both read as the default here; times until a reset may differ by the second that can pass
// between the two calls, so they are taken out and compared apart.

export interface Decision {
  overallCode?: string;
  statuses?: Array<{
    code: string;
    currentLimit?: { name?: string; requestsPerUnit: number; unit: string };
    limitRemaining: number;
  }>;
  headers?: Array<[string, string]>;
  metadata?: unknown;
  error?: { code: number };
}

export interface Comparable {
  decision: Decision;
  /** Seconds until each status's reset, then the reset header's, in order. */
  resets: number[];
}

type Loose = Record<string, unknown>;

const RESET_HEADER = /reset/i;

function seconds(d: unknown): number {
  if (d === undefined || d === null) return 0;
  if (typeof d === 'string') return Number(d.replace(/s$/, ''));
  return Number((d as { seconds?: string | number }).seconds ?? 0);
}

/** A google.protobuf.Struct as grpc-js decodes it (`{fields: {k: {kind, stringValue…}}}`) → plain JSON. */
export function fromStruct(s: unknown): unknown {
  const fields = (s as { fields?: Record<string, unknown> } | undefined)?.fields ?? {};
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, fromValue(v)]));
}

function fromValue(v: unknown): unknown {
  const value = v as Loose;
  switch (value.kind) {
    case 'structValue':
      return fromStruct(value.structValue);
    case 'listValue':
      return ((value.listValue as { values?: unknown[] }).values ?? []).map(fromValue);
    case 'numberValue':
      return value.numberValue;
    case 'stringValue':
      return value.stringValue;
    case 'boolValue':
      return value.boolValue;
    default:
      return null;
  }
}

/** A decoded response (gRPC, or `/json`'s body) in comparable form. */
export function toComparable(response: Loose, metadata: (raw: unknown) => unknown): Comparable {
  const resets: number[] = [];
  const statuses = ((response.statuses ?? []) as Loose[]).map((s) => {
    resets.push(seconds(s.durationUntilReset));
    const limit = s.currentLimit as Loose | undefined;
    return {
      code: (s.code as string | undefined) ?? 'UNKNOWN',
      ...(limit
        ? {
            currentLimit: {
              ...(limit.name ? { name: limit.name as string } : {}),
              requestsPerUnit: Number(limit.requestsPerUnit ?? 0),
              unit: (limit.unit as string | undefined) ?? 'UNKNOWN',
            },
          }
        : {}),
      limitRemaining: Number(s.limitRemaining ?? 0),
    };
  });
  const headers = ((response.responseHeadersToAdd ?? []) as Array<{ key: string; value: string }>).flatMap(
    ({ key, value }): Array<[string, string]> => {
      if (!RESET_HEADER.test(key)) return [[key, value]];
      resets.push(Number(value));
      return [[key, '<reset>']];
    },
  );
  return {
    decision: {
      overallCode: (response.overallCode as string | undefined) ?? 'UNKNOWN',
      statuses,
      ...(headers.length > 0 ? { headers } : {}),
      ...(response.dynamicMetadata ? { metadata: metadata(response.dynamicMetadata) } : {}),
    },
    resets,
  };
}

export function comparableGrpc(answer: Answer): Comparable {
  if (answer.error) return { decision: { error: { code: answer.error.code } }, resets: [] };
  return toComparable(answer.grpc ?? {}, fromStruct);
}

export interface ComparableJson {
  status: number;
  comparable?: Comparable;
}

/** A `/json` answer: its status and, when it is a decision, the decision. */
export function comparableJson(answer: JsonAnswer): ComparableJson {
  if (answer.status !== 200 && answer.status !== 429) return { status: answer.status };
  return { status: answer.status, comparable: toComparable(JSON.parse(answer.body) as Loose, (m) => m) };
}

/** The first difference between two sets of resets beyond the second that may pass between two calls. */
export function resetsDiffer(a: readonly number[], b: readonly number[]): boolean {
  return a.length !== b.length || a.some((x, i) => Math.abs(x - (b[i] ?? Number.NaN)) > 1);
}

/** JSON with object keys sorted, so that two equal values print the same. */
export function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1)))
      : x,
  );
}
