import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Runs `redis-cli -p <port> <args…>` against 127.0.0.1 and returns its output, trimmed. */
export async function redisCli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], {
    // `--cluster create` waits for the nodes to agree, slow on a loaded machine
    timeout: 30_000,
  });
  return stdout.trim();
}
