import { forbidden, invalid, required, tooLong } from './field-errors.js';
import { GoLiteral, type FieldError, type KubeObject, type NameRule } from './types.js';

/** `ValidateObjectMeta` and `ValidateObjectMetaUpdate` from apimachinery, for the rules clients hit. */

const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const TOTAL_ANNOTATION_BYTES = 256 * 1024;

const SUBDOMAIN_MESSAGE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MESSAGE =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1035_MESSAGE =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const QUALIFIED_NAME_MESSAGE =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MESSAGE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

/** Messages for a name that breaks `rule`, without the field prefix. */
export function checkName(name: string, rule: NameRule): string[] {
  switch (rule) {
    case 'subdomain':
      return [
        ...(name.length > 253 ? ['must be no more than 253 characters'] : []),
        ...(SUBDOMAIN.test(name) ? [] : [SUBDOMAIN_MESSAGE]),
      ];
    case 'label':
      return [
        ...(name.length > 63 ? ['must be no more than 63 characters'] : []),
        ...(LABEL.test(name) ? [] : [LABEL_MESSAGE]),
      ];
    case 'dns1035':
      return [
        ...(name.length > 63 ? ['must be no more than 63 characters'] : []),
        ...(DNS1035.test(name) ? [] : [DNS1035_MESSAGE]),
      ];
    case 'path-segment':
      if (name === '.' || name === '..') return [`may not be '${name}'`];
      return name.includes('/') || name.includes('%') ? [`may not contain '/'`] : [];
    default: {
      const _exhaustive: never = rule;
      return _exhaustive;
    }
  }
}

/** `prefix/name` keys of labels, annotations and finalizers. */
function checkQualifiedName(key: string): string[] {
  const slash = key.lastIndexOf('/');
  const name = slash === -1 ? key : key.slice(slash + 1);
  const prefix = slash === -1 ? undefined : key.slice(0, slash);
  const problems: string[] = [];
  if (prefix !== undefined) {
    if (prefix === '') problems.push('prefix part must be non-empty');
    else problems.push(...checkName(prefix, 'subdomain').map((m) => `prefix part ${m}`));
  }
  if (name === '') problems.push('name part must be non-empty');
  else {
    if (name.length > 63) problems.push('name part must be no more than 63 characters');
    if (!QUALIFIED_NAME.test(name)) problems.push(QUALIFIED_NAME_MESSAGE);
  }
  return problems;
}

export function validateObjectMeta(obj: KubeObject, rule: NameRule, namespaced: boolean): FieldError[] {
  const meta = obj.metadata;
  const errors: FieldError[] = [];
  if (!meta.name && !meta.generateName) {
    errors.push(required('metadata.name', 'name or generateName is required'));
  } else if (meta.name) {
    for (const message of checkName(meta.name, rule))
      errors.push(invalid('metadata.name', meta.name, message));
  }
  if (namespaced && !meta.namespace) errors.push(required('metadata.namespace'));
  if (!namespaced && meta.namespace) {
    errors.push(forbidden('metadata.namespace', 'not allowed on this type'));
  }
  for (const [key, value] of Object.entries(meta.labels ?? {})) {
    for (const m of checkQualifiedName(key)) errors.push(invalid('metadata.labels', key, m));
    if (value.length > 63)
      errors.push(invalid('metadata.labels', value, 'must be no more than 63 characters'));
    if (!LABEL_VALUE.test(value)) errors.push(invalid('metadata.labels', value, LABEL_VALUE_MESSAGE));
  }
  let annotationBytes = 0;
  for (const [key, value] of Object.entries(meta.annotations ?? {})) {
    for (const m of checkQualifiedName(key.toLowerCase()))
      errors.push(invalid('metadata.annotations', key, m));
    annotationBytes += Buffer.byteLength(key) + Buffer.byteLength(value);
  }
  if (annotationBytes > TOTAL_ANNOTATION_BYTES)
    errors.push(tooLong('metadata.annotations', TOTAL_ANNOTATION_BYTES));
  (meta.finalizers ?? []).forEach((finalizer, i) => {
    for (const m of checkQualifiedName(finalizer))
      errors.push(invalid(`metadata.finalizers[${i}]`, finalizer, m));
  });
  return errors;
}

/** Immutable metadata and the "no new finalizers while deleting" rule. */
export function validateObjectMetaUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const meta = obj.metadata;
  if (meta.uid !== old.metadata.uid)
    errors.push(invalid('metadata.uid', meta.uid ?? '', 'field is immutable'));
  if (old.metadata.deletionTimestamp) {
    const before = new Set(old.metadata.finalizers ?? []);
    const added = (meta.finalizers ?? []).filter((f) => !before.has(f));
    if (added.length) {
      const list = `[]string{${added.map((f) => JSON.stringify(f)).join(', ')}}`;
      errors.push(
        forbidden(
          'metadata.finalizers',
          `no new finalizers can be added if the object is being deleted, found new finalizers ${list}`,
        ),
      );
    }
  }
  return errors;
}

/** The 422 body for a PUT without `metadata.resourceVersion` on a kind that forbids unconditional updates. */
export function missingResourceVersion(): FieldError {
  return invalid('metadata.resourceVersion', new GoLiteral('0x0'), 'must be specified for an update');
}
