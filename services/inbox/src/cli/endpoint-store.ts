import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

// Endpoints the CLI created, so `tail` and `replay` find their token and host. A JSON file, readable by its
// owner only: it holds tokens.

export interface SavedEndpoint {
  host: string;
  token: string;
  receiveUrl: string;
  createdAt: string;
  /** `forward`: the last capture it sent on, where a restart resumes. */
  lastForwardedId?: string;
  /** ISO 8601: when it did. */
  lastForwardedAt?: string;
}

interface StoreFile {
  endpoints: Record<string, SavedEndpoint>;
}

async function readStore(path: string): Promise<StoreFile> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<StoreFile>;
    return { endpoints: parsed.endpoints ?? {} };
  } catch (e: unknown) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { endpoints: {} };
    throw e;
  }
}

export async function findSavedEndpoint(path: string, id: string): Promise<SavedEndpoint | undefined> {
  return (await readStore(path)).endpoints[id];
}

/** Written after each capture `forward` sends on, so a restart or a resumed stream starts after it. */
export async function saveForwardPosition(
  path: string,
  id: string,
  at: { endpoint: SavedEndpoint; requestId: string; time: Date },
): Promise<void> {
  const saved = (await readStore(path)).endpoints[id] ?? at.endpoint;
  await saveEndpoint(path, id, {
    ...saved,
    lastForwardedId: at.requestId,
    lastForwardedAt: at.time.toISOString(),
  });
}

export async function saveEndpoint(path: string, id: string, endpoint: SavedEndpoint): Promise<void> {
  const store = await readStore(path);
  store.endpoints[id] = endpoint;
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, JSON.stringify(store, null, 2) + '\n', { mode: 0o600 });
}
