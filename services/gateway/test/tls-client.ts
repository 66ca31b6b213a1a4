import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { connect as connectH2, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import { connect as connectTls } from 'node:tls';

export interface H2Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** An HTTP/2 session to the gateway on 127.0.0.1 over TLS, trusting `caFile` for `localhost`. */
export async function openH2(port: number, caFile: string): Promise<ClientHttp2Session> {
  const ca = await readFile(caFile);
  const session = connectH2(`https://localhost:${port}`, { ca, host: '127.0.0.1' });
  await new Promise<void>((resolve, reject) => {
    session.once('connect', () => resolve());
    session.once('error', reject);
  });
  return session;
}

/** One request on `session`, read whole. */
export function requestH2(
  session: ClientHttp2Session,
  o: { path: string; method?: string; headers?: Record<string, string>; body?: string },
): Promise<H2Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':method': o.method ?? 'GET', ':path': o.path, ...o.headers });
    const chunks: Buffer[] = [];
    let headers: IncomingHttpHeaders = {};
    stream.on('response', (h) => (headers = h));
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () =>
      resolve({ status: Number(headers[':status']), headers, body: Buffer.concat(chunks).toString() }),
    );
    stream.on('error', reject);
    stream.end(o.body);
  });
}

/** A request on a session of its own, closed after. */
export async function fetchH2(
  port: number,
  caFile: string,
  o: Parameters<typeof requestH2>[1],
): Promise<H2Answer> {
  const session = await openH2(port, caFile);
  try {
    return await requestH2(session, o);
  } finally {
    session.close();
  }
}

/** The SHA-256 fingerprint of the certificate a new TLS connection to `port` is served, trusting any. */
export function servedFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connectTls({
      host: '127.0.0.1',
      port,
      servername: 'localhost',
      rejectUnauthorized: false,
    });
    socket.once('secureConnect', () => {
      resolve(socket.getPeerCertificate().fingerprint256);
      socket.end();
    });
    socket.once('error', reject);
  });
}

export async function fingerprintOf(certFile: string): Promise<string> {
  return new X509Certificate(await readFile(certFile)).fingerprint256;
}
