import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ServerProcess {
  host: string;
  port: number;
  /** Stops the server; resolves once the process has exited. */
  stop(): Promise<void>;
  /** Stops the server abruptly (SIGKILL), as a crash would. */
  kill(): Promise<void>;
}

interface SpawnOptions {
  command: string;
  args: readonly string[];
  port: number;
  /** Bytes to send once connected, and a test on the reply that says the server is ready. */
  probe: { send: string; ready: (reply: string) => boolean; tls?: { ca: Buffer; cert: Buffer; key: Buffer } };
  timeoutMs?: number;
}

/** Spawns a server on 127.0.0.1 and waits until it answers the probe. */
export async function spawnServer(opts: SpawnOptions): Promise<ServerProcess> {
  const child = spawn(opts.command, [...opts.args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const spawnError = new Promise<never>((_, reject) => child.once('error', reject));
  const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${opts.command} exited with ${child.exitCode}: ${stderr}`);
    if (await Promise.race([probe(opts.port, opts.probe), spawnError])) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${opts.command} did not answer on port ${opts.port}: ${stderr}`);
    }
    await sleep(20);
  }
  const stopWith = (signal: NodeJS.Signals) => async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return { host: '127.0.0.1', port: opts.port, stop: stopWith('SIGTERM'), kill: stopWith('SIGKILL') };
}

function probe(port: number, p: SpawnOptions['probe']): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = p.tls
      ? connectTls({ port, host: '127.0.0.1', ...p.tls, servername: 'localhost' })
      : connect(port, '127.0.0.1');
    let reply = '';
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    // a server that answers "not ready yet" and hangs up (an HTTP/1.0 probe) is probed again
    socket.once('close', () => done(false));
    socket.once(p.tls ? 'secureConnect' : 'connect', () => socket.write(p.send));
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString();
      if (p.ready(reply)) done(true);
    });
  });
}
