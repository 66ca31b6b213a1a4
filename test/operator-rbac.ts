import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { KubeConfig } from '@kubernetes/client-node';
import type { ControlPlane } from '@portcullis/testing';
import { parseAllDocuments } from 'yaml';
import { helmPath } from '../hack/helm.js';

const run = promisify(execFile);
const chart = join(import.meta.dirname, '../charts/portcullis');
const RBAC_KINDS = new Set(['ServiceAccount', 'Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);

export interface OperatorIdentity {
  /** The operator's ServiceAccount, as the chart names it. */
  serviceAccount: string;
  /** Acts as that ServiceAccount (a TokenRequest token): what the operator's Pod would get. */
  kubeConfig: KubeConfig;
}

/**
 * Creates `namespace` and applies the operator's ServiceAccount, Roles and bindings exactly as
 * `helm template` renders them from the chart (release `portcullis` in `namespace`), so an operator using the
 * returned KubeConfig has the chart's permissions and no more: a missing verb fails the test that needs it.
 */
export async function applyOperatorRbac(cp: ControlPlane, namespace: string): Promise<OperatorIdentity> {
  const { stdout } = await run(
    helmPath(),
    ['template', 'portcullis', chart, '--namespace', namespace, '--show-only', 'templates/operator.yaml'],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  const rbac = parseAllDocuments(stdout)
    .map((d) => d.toJSON() as { kind?: string; metadata?: { name?: string } } | null)
    .filter((m) => m?.kind !== undefined && RBAC_KINDS.has(m.kind));
  const serviceAccount = rbac.find((m) => m?.kind === 'ServiceAccount')?.metadata?.name;
  if (!serviceAccount) throw new Error('the chart renders no ServiceAccount for the operator');
  await cp.kubectl(['apply', '-f', '-'], {
    input: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }),
  });
  await cp.kubectl(['apply', '--namespace', namespace, '-f', '-'], {
    input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: rbac }),
  });
  const { kubeConfig } = await cp.serviceAccountKubeconfig(namespace, serviceAccount);
  return { serviceAccount, kubeConfig };
}
