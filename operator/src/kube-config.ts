import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent, type AgentOptions } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';

/** Distinct TLS settings kept at once: a client certificate rotated by an exec plugin adds one per rotation. */
const AGENTS_KEPT = 8;

/** The kubeconfig at `path`, or the default one (in-cluster service account, `$KUBECONFIG`, `~/.kube/config`). */
export function loadKubeConfig(path: string): KubeConfig {
  const kc = new KubeConfig();
  if (path) kc.loadFromFile(path);
  else kc.loadFromDefault();
  return kc;
}

/**
 * Makes the API clients built from `kc` share keep-alive connections. `@kubernetes/client-node` 1.x builds
 * a new agent for every request, so each one opens a connection of its own and pays a TLS handshake: at
 * 10,000 resources that was most of the operator's CPU (about 9 ms per status write). Each request still
 * gets its settings from `kc` (a token read afresh, a rotated certificate); requests with the same TLS
 * settings share one agent. Proxy agents are left alone, and so are watches, which are long-lived anyway.
 */
export function reuseConnections(kc: KubeConfig): KubeConfig {
  const agents = new Map<string, HttpAgent>();
  const apply = kc.applySecurityAuthentication.bind(kc);
  kc.applySecurityAuthentication = async (context) => {
    await apply(context);
    const made = context.getAgent();
    if (made?.constructor !== HttpsAgent && made?.constructor !== HttpAgent) return;
    const tls = tlsSettings((made as HttpAgent & { options: AgentOptions }).options);
    const key = `${made.constructor.name}:${JSON.stringify(Object.entries(tls).map(([k, v]) => [k, asText(v)]))}`;
    let agent = agents.get(key);
    if (!agent) {
      agent =
        made instanceof HttpsAgent
          ? new HttpsAgent({ ...tls, keepAlive: true })
          : new HttpAgent({ keepAlive: true });
      agents.set(key, agent);
      for (const [old, a] of agents) {
        if (agents.size <= AGENTS_KEPT) break;
        agents.delete(old);
        a.destroy();
      }
    }
    context.setAgent(agent);
  };
  return kc;
}

/** The options client-node sets on an agent from the kubeconfig, the unset ones left out. */
function tlsSettings(o: AgentOptions): AgentOptions {
  const { ca, cert, key, pfx, passphrase, rejectUnauthorized, servername } = o;
  return Object.fromEntries(
    Object.entries({ ca, cert, key, pfx, passphrase, rejectUnauthorized, servername }).filter(
      ([, v]) => v !== undefined,
    ),
  );
}

/** Certificates and keys compared by content, as text. */
function asText(v: unknown): unknown {
  return Array.isArray(v) ? v.map(asText) : Buffer.isBuffer(v) ? v.toString('base64') : v;
}
