import { join } from 'node:path';
import { parseInboxEndpoint } from '@portcullis/config';
import { createMessageCodec, PROTO_FILES } from '@portcullis/protos';
import { startControlPlane, type ControlPlane } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Issue 35: the InboxEndpoint CRD admitted retention.maxBytes up to 10737418240, the operator's parser only
// up to 2^32-1, so a resource the API server stored was rejected on its status. Now the API server, the
// operator's parser and the xDS message (a uint64) agree.

const crdDir = join(import.meta.dirname, '..', 'crds');
const codec = createMessageCodec(PROTO_FILES.portcullisConfig, 'portcullis.config.v1.InboxEndpoint');

const manifest = (name: string, maxBytes: number): string => `apiVersion: portcullis.dev/v1alpha1
kind: InboxEndpoint
metadata: {name: ${name}, namespace: default}
spec:
  endpointId: ${name}-0123456789abcdefghij
  retention: {maxRequests: 1000000, maxAgeHours: 8760, maxBytes: ${maxBytes}}
`;

describe('issue 35: retention.maxBytes at the CRD maximum', () => {
  let cp: ControlPlane;
  beforeAll(async () => {
    cp = await startControlPlane({ crds: [crdDir] });
  }, 180_000);
  afterAll(async () => {
    await cp.close();
  });

  it('is stored by the API server, accepted by the parser and carried over xDS', async () => {
    await cp.kubectl(['create', '-f', '-'], { input: manifest('largest', 10_737_418_240) });
    const stored = JSON.parse(await cp.kubectl(['get', 'inboxendpoint', 'largest', '-o', 'json'])) as {
      spec: unknown;
    };
    const spec = parseInboxEndpoint('default/largest', stored.spec);
    expect(spec.retention).toEqual({ maxRequests: 1_000_000, maxAgeHours: 8760, maxBytes: 10_737_418_240 });
    const decoded = codec.decode(codec.encode({ name: 'default/largest', ...spec })) as {
      retention?: unknown;
    };
    expect(decoded.retention).toEqual(spec.retention);
  });

  it('one byte more is refused by the API server and by the parser', async () => {
    const answer = await cp
      .kubectl(['create', '-f', '-'], { input: manifest('too-large', 10_737_418_241) })
      .then(
        () => 'created',
        (err: unknown) => String((err as { stderr?: string }).stderr ?? err),
      );
    expect(answer).toContain('spec.retention.maxBytes: Invalid value: 10737418241');
    expect(() =>
      parseInboxEndpoint('default/too-large', {
        endpointId: 'too-large-0123456789abcdefghij',
        retention: { maxBytes: 10_737_418_241 },
      }),
    ).toThrow('default/too-large: retention.maxBytes: must be at most 10737418240');
  });
});
