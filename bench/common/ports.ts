import { freePort } from '@portcullis/testing';

/** `count` different TCP ports on 127.0.0.1 that were free a moment ago (`freePort` alone may repeat one). */
export async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}
