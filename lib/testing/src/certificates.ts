import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Paths of PEM files: a CA, a server certificate for localhost/127.0.0.1 and a client certificate. */
export interface TestCertificates {
  dir: string;
  caCert: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

/** Makes a throw-away CA and two certificates it signed, with the `openssl` command, valid for a day. */
export async function createCertificates(clientName = 'client.test'): Promise<TestCertificates> {
  const dir = await mkdtemp(join(tmpdir(), 'portcullis-certs-'));
  const p = (name: string): string => join(dir, name);
  const openssl = (...args: string[]) => run('openssl', args, { cwd: dir });
  await selfSign(dir, 'ca', { subject: '/CN=portcullis-test-ca' });
  const issue = async (name: string, san: string): Promise<void> => {
    await writeFile(p(`${name}.ext`), `subjectAltName=${san}\n`);
    await openssl(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      `/CN=${name}`,
      '-keyout',
      p(`${name}.key`),
      '-out',
      p(`${name}.csr`),
    );
    await openssl(
      'x509',
      '-req',
      '-days',
      '1',
      '-in',
      p(`${name}.csr`),
      '-CA',
      p('ca.crt'),
      '-CAkey',
      p('ca.key'),
      '-CAcreateserial',
      '-extfile',
      p(`${name}.ext`),
      '-out',
      p(`${name}.crt`),
    );
  };
  await issue('server', 'DNS:localhost,IP:127.0.0.1');
  await issue('client', `DNS:${clientName}`);
  return {
    dir,
    caCert: p('ca.crt'),
    serverCert: p('server.crt'),
    serverKey: p('server.key'),
    clientCert: p('client.crt'),
    clientKey: p('client.key'),
  };
}

/**
 * `openssl req -x509`: `<name>.crt`, self-signed for `subject` (and `extra` arguments), and `<name>.key` in
 * `dir`, valid for a day.
 */
async function selfSign(
  dir: string,
  name: string,
  o: { subject: string; extra?: readonly string[] },
): Promise<void> {
  const request = ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', o.subject];
  request.push(...(o.extra ?? []));
  await run('openssl', [...request, '-keyout', join(dir, `${name}.key`), '-out', join(dir, `${name}.crt`)]);
}

/** A self-signed certificate (no CA) for localhost/127.0.0.1 and its key, as PEM files, valid for a day. */
export async function createSelfSignedCertificate(): Promise<{ dir: string; cert: string; key: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'portcullis-self-signed-'));
  await selfSign(dir, 'self-signed', {
    subject: '/CN=localhost',
    extra: ['-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'],
  });
  return { dir, cert: join(dir, 'self-signed.crt'), key: join(dir, 'self-signed.key') };
}
