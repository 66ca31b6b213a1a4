import type { EnvReader } from '@portcullis/kit';

/** Filtered listing and export (see `search/`, `export/`). */
export interface SearchSettings {
  /** Captures one filtered `GET …/requests` reads at most before it answers with a cursor. */
  maxScan: number;
  /** Captures one export (HAR, NDJSON) holds at most, newest first. */
  maxExport: number;
  /** Largest HAR an import accepts, in bytes. */
  maxImportBytes: number;
}

export function readSearchSettings(env: EnvReader): SearchSettings {
  return {
    maxScan: env.int('INBOX_SEARCH_MAX_SCAN', { default: 1000, min: 100, max: 100_000 }),
    maxExport: env.int('INBOX_EXPORT_MAX_REQUESTS', { default: 10_000, min: 1, max: 100_000 }),
    maxImportBytes: env.int('INBOX_IMPORT_MAX_BYTES', {
      default: 16 * 1024 ** 2,
      min: 1024,
      max: 1024 ** 3,
    }),
  };
}
