import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BadRequestError,
  InternalError,
  listAnsweredErrors,
  NotFoundError,
  SettingsError,
} from '@portcullis/kit';
import { describe, expect, it } from 'vitest';
import { compareErrorTable, readErrorTable } from './error-table.js';

const README = `# svc

## Errors

| code          | status | when      |
| ------------- | ------ | --------- |
| \`NOT_FOUND\`   | 404    | no route  |
| \`INTERNAL\`    | 500    | the rest  |
| \`TEAPOT\`      | 418    | not ours  |
| \`BAD_REQUEST\` | 404    | wrong     |

## Next
`;

const SERVICES = ['gateway', 'inbox', 'ratelimit'];

describe('README errors tables', () => {
  it('finds codes answered but not documented, documented but not answered, and wrong statuses', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'error-table-')), 'README.md');
    writeFileSync(path, README);
    const answered = [InternalError, BadRequestError, NotFoundError, SettingsError];
    // every mapper answers kit's edge errors too; the fixture documents three of them
    const documentedEdge = ['BAD_REQUEST', 'INTERNAL', 'NOT_FOUND'];
    const edgeCodes = listAnsweredErrors([]).map((t) => t.code);
    expect(compareErrorTable(path, answered)).toEqual({
      undocumented: edgeCodes.filter((code) => !documentedEdge.includes(code)).sort(),
      notAnswered: ['TEAPOT'],
      wrongStatus: ['BAD_REQUEST: documented 404, answers 400'],
      repeated: [],
    });
    writeFileSync(path, README.replace(/\| `NOT_FOUND`.*\n/, ''));
    expect(compareErrorTable(path, answered).undocumented).toContain('NOT_FOUND');
  });

  it('gives a code the same status in every service errors page', () => {
    const statuses = new Map<string, Set<number>>();
    for (const service of SERVICES) {
      const readme = new URL(`../../../services/${service}/docs/errors.md`, import.meta.url).pathname;
      for (const { code, status } of readErrorTable(readme)) {
        statuses.set(code, (statuses.get(code) ?? new Set()).add(status));
      }
    }
    expect([...statuses].filter(([, s]) => s.size > 1)).toEqual([]);
    expect(statuses.get('INTERNAL')).toEqual(new Set([500]));
  });
});
