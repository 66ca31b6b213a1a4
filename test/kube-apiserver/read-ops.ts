import { toServed, type ApiContext } from './context.js';
import { badRequest, expired } from './errors.js';
import {
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
  type FieldSelector,
  type LabelSelector,
} from './selectors.js';
import type { KubeObject, ResourceDef } from './types.js';

/** Lists with selectors and `limit`/`continue` paging, shaped as the real server's `<Kind>List`. */

export interface ListQuery {
  labelSelector: string | null;
  fieldSelector: string | null;
  limit: number | undefined;
  continueToken: string | null;
}

export interface Selection {
  labels: LabelSelector;
  fields: FieldSelector;
}

export function parseSelection(
  def: ResourceDef,
  query: Pick<ListQuery, 'labelSelector' | 'fieldSelector'>,
): Selection {
  return {
    labels: parseLabelSelector(query.labelSelector),
    fields: parseFieldSelector(query.fieldSelector, def.fieldLabels),
  };
}

/** Matching is done on the stored form, where the field labels point. */
export function isSelected(selection: Selection, stored: KubeObject): boolean {
  return matchesLabels(selection.labels, stored.metadata.labels) && matchesFields(selection.fields, stored);
}

interface ContinueToken {
  v: string;
  rv: number;
  start: string;
}

const EXPIRED_CONTINUE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

function decodeContinue(token: string): ContinueToken {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as Partial<ContinueToken>;
    if (typeof parsed.rv === 'number' && typeof parsed.start === 'string') {
      return { v: 'meta.k8s.io/v1', rv: parsed.rv, start: parsed.start };
    }
  } catch {
    // falls through to the 400 below
  }
  throw badRequest(
    'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
  );
}

function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify(token)).toString('base64');
}

/** The matching objects in storage order, in stored form. */
export function selectStored(
  ctx: ApiContext,
  def: ResourceDef,
  namespace: string | undefined,
  selection: Selection,
): KubeObject[] {
  const scope = def.namespaced ? namespace : undefined;
  return ctx.store.list(def.storageKey, scope).filter((obj) => isSelected(selection, obj));
}

export function listObjects(
  ctx: ApiContext,
  def: ResourceDef,
  namespace: string | undefined,
  query: ListQuery,
): KubeObject {
  const selection = parseSelection(def, query);
  const token = query.continueToken ? decodeContinue(query.continueToken) : undefined;
  if (token && token.rv < ctx.store.floor) throw expired(EXPIRED_CONTINUE);
  const listRev = token?.rv ?? ctx.store.revision;
  let matched = selectStored(ctx, def, namespace, selection).map((obj) => ({
    key: storageOrderKey(obj),
    obj,
  }));
  if (token) matched = matched.filter((m) => m.key > token.start);
  const limit = query.limit && query.limit > 0 ? query.limit : undefined;
  const page = limit === undefined ? matched : matched.slice(0, limit);
  const metadata: Record<string, unknown> = { resourceVersion: String(listRev) };
  const remaining = matched.length - page.length;
  const last = page.at(-1);
  if (remaining > 0 && last) {
    metadata['continue'] = encodeContinue({ v: 'meta.k8s.io/v1', rv: listRev, start: `${last.key}\u0000` });
    if (!query.labelSelector && !query.fieldSelector) metadata['remainingItemCount'] = remaining;
  }
  return {
    apiVersion: def.group ? `${def.group}/${def.version}` : def.version,
    kind: def.listKind,
    metadata,
    items: page.map((m) => listItem(def, m.obj)),
  };
}

function storageOrderKey(obj: KubeObject): string {
  return `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
}

/** Typed (built-in) lists carry items without apiVersion and kind; unstructured CR lists keep them. */
export function listItem(def: ResourceDef, stored: KubeObject): KubeObject {
  const served = toServed(def, stored);
  if (def.isCustom) return served;
  const { apiVersion: _apiVersion, kind: _kind, ...rest } = served;
  return rest as KubeObject;
}
