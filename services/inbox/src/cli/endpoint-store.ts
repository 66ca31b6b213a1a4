import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

// Endpoints the CLI created, so `tail` and `replay` find their token and host. A JSON file, readable by its
// owner only: it holds tokens.

export interface SavedEndpoint {
  host: string;
  token: string;
  receiveUrl: string;
  createdAt: string;
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

export async function saveEndpoint(path: string, id: string, endpoint: SavedEndpoint): Promise<void> {
  const store = await readStore(path);
  store.endpoints[id] = endpoint;
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await writeFile(path, JSON.stringify(store, null, 2) + '\n', { mode: 0o600 });
}
