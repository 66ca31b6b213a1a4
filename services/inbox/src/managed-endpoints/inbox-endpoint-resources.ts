import { ConfigError, parseInboxEndpoint, parseSignatureSettings } from '@portcullis/config';
import type { Logger } from '@portcullis/kit';
import { PROTO_FILES, createMessageCodec } from '@portcullis/protos';
import type { SecretBox } from '../signatures/secret-box.js';
import type { ManagedEndpoint } from '../store/types.js';
import type { StoredSignature } from '../contract/capture-records.js';

export const INBOX_ENDPOINT_TYPE = 'type.googleapis.com/portcullis.config.v1.InboxEndpoint';

const codec = createMessageCodec(PROTO_FILES.portcullisConfig, 'portcullis.config.v1.InboxEndpoint');

interface InboxEndpointMessage {
  name?: string;
  endpointId?: string;
  displayName?: string;
  forward?: Array<{
    url?: string;
    pathMode?: string;
    enabled?: boolean;
    timeoutSeconds?: number;
    maxAttempts?: number;
    initialDelaySeconds?: number;
    maxDelaySeconds?: number;
    maxConcurrent?: number;
  }>;
  retention?: { maxRequests?: number; maxAgeHours?: number; maxBytes?: number };
  response?: {
    status?: number;
    headers?: Array<{ name?: string; value?: string }>;
    body?: string;
    delayMs?: number;
  };
  signature?: {
    provider?: string;
    toleranceSeconds?: number;
    header?: string;
    algorithm?: string;
    encoding?: string;
    prefix?: string;
    secret?: string;
  };
}

/**
 * The managed endpoints of the InboxEndpoint resources received over xDS, each validated again with the
 * shared parsers (a foreign management server gets the same checks). Throws one `ConfigError` listing every
 * problem of every resource, and ids used twice, so the update is NACKed whole. A signature's secret is
 * sealed here, before anything is stored; without a secrets key (`secrets` undefined) the endpoint is taken
 * unchecked and that is logged, as the API answers 503 rather than keep a secret in clear.
 */
export function endpointsFromResources(
  resources: ReadonlyArray<{ value: Uint8Array }>,
  o: { secrets: SecretBox | undefined; log: Logger },
): ManagedEndpoint[] {
  const problems: string[] = [];
  const owners = new Map<string, string>();
  const endpoints: ManagedEndpoint[] = [];
  for (const resource of resources) {
    const m = codec.decode(resource.value) as InboxEndpointMessage;
    const name = m.name ?? '';
    try {
      const spec = parseInboxEndpoint(name, toSpec(m));
      const signature =
        m.signature &&
        sealSignature(`${name}: signature`, m.signature, { ...o, endpointId: spec.endpointId });
      const owner = owners.get(spec.endpointId);
      if (owner !== undefined) {
        problems.push(`${name}: endpointId: '${spec.endpointId}' is already used by ${owner}`);
        continue;
      }
      owners.set(spec.endpointId, name);
      endpoints.push({
        id: spec.endpointId,
        name: spec.displayName,
        resource: name,
        retention: {
          maxRequests: spec.retention.maxRequests,
          maxAgeMs: spec.retention.maxAgeHours * 3_600_000,
        },
        forward: spec.forward,
        ...(spec.response ? { response: spec.response } : {}),
        ...(signature ? { signature } : {}),
      });
    } catch (err: unknown) {
      if (!(err instanceof ConfigError)) throw err;
      problems.push(...err.problems);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return endpoints;
}

function sealSignature(
  source: string,
  message: NonNullable<InboxEndpointMessage['signature']>,
  o: { endpointId: string; secrets: SecretBox | undefined; log: Logger },
): StoredSignature | undefined {
  const { preset, secret } = parseSignatureSettings(source, withoutZeroValues(message));
  if (o.secrets) return { preset, sealedSecret: o.secrets.seal(secret, o.endpointId) };
  o.log.warn(
    { endpointId: o.endpointId, provider: preset.provider },
    'INBOX_SECRETS_KEY is not set: the signature preset of a managed endpoint is not kept, captures are not checked',
  );
  return undefined;
}

/** proto3 sends empty strings and zeros as absent; the parser's defaults stand for them. */
function withoutZeroValues(m: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(m).filter(([, v]) => v !== '' && v !== 0 && v != null));
}

/**
 * The message back in the resource's spec shape. proto3 leaves zero values out: a missing `enabled` is
 * false (the operator always sends it), a missing number takes the parser's default (zero is never meant).
 */
function toSpec(m: InboxEndpointMessage): Record<string, unknown> {
  return {
    endpointId: m.endpointId,
    displayName: m.displayName,
    forward: (m.forward ?? []).map((t) => ({
      url: t.url,
      pathMode: t.pathMode,
      enabled: t.enabled ?? false,
      timeoutSeconds: t.timeoutSeconds,
      maxConcurrent: t.maxConcurrent,
      retry: {
        maxAttempts: t.maxAttempts,
        initialDelaySeconds: t.initialDelaySeconds,
        maxDelaySeconds: t.maxDelaySeconds,
      },
    })),
    retention: m.retention && {
      maxRequests: m.retention.maxRequests,
      maxAgeHours: m.retention.maxAgeHours,
      maxBytes: m.retention.maxBytes,
    },
    response: m.response && { ...m.response, headers: m.response.headers ?? [] },
  };
}

/** An InboxEndpoint message as the operator encodes it: for tests and tools that serve resources. */
export function encodeInboxEndpoint(message: InboxEndpointMessage): Uint8Array {
  return codec.encode(message as Record<string, unknown>);
}
