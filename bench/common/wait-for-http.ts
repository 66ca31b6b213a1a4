import { setTimeout as sleep } from 'node:timers/promises';
import { exitError, type Child } from './child-process.js';

const POLL_MS = 50;

/** Polls `url` until it answers 200; throws with the child's output if it exits or `timeoutMs` passes. */
export async function waitForHttpOk(url: string, child: Child, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.isExited()) throw exitError(child.name, child.outputTail());
    const status = await fetch(url).then(
      async (r) => (await r.arrayBuffer(), r.status),
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline) {
      throw new Error(`${url} did not answer 200 within ${timeoutMs} ms:\n${child.outputTail()}`);
    }
    await sleep(POLL_MS);
  }
}
