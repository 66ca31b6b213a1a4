import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEnvReader, type EnvSource } from '@portcullis/kit';
import { describe, expect, it } from 'vitest';
import { checkSettingsDocs, readTableNames, recordEnvNames } from './settings-docs.js';

const README = [
  '# x',
  '## Settings',
  '',
  '| variable | default | meaning |',
  '| --- | --- | --- |',
  '| `X_PORT` (`OLD_PORT`) | `80` | not `X_MENTIONED` |',
  '| `X_TLS`, `X_TLS_CACERT` | `false` | |',
  '| `X_EXTRA_*` | | a family |',
  '## Next',
  '| `X_AFTER` | | |',
].join('\n');

function load(source: EnvSource): void {
  const env = createEnvReader(source);
  env.int('X_PORT', { default: 80, min: 0, max: 65_535, alias: 'OLD_PORT' });
  const prefix = 'X_TLS';
  if (env.bool(prefix, { default: false })) env.str(`${prefix}_CACERT`);
  env.str('X_EXTRA_ONE');
  env.str('X_UNDOCUMENTED');
}

describe('settings docs', () => {
  it('reads the first column of the section’s table, families apart', () => {
    const t = readTableNames(README, 'Settings');
    expect([...t.names]).toEqual(['X_PORT', 'OLD_PORT', 'X_TLS', 'X_TLS_CACERT']);
    expect(t.families).toEqual(['X_EXTRA_']);
  });

  it('records every name looked up, in each environment', () => {
    expect([...recordEnvNames(load, [{}])]).toEqual([
      'X_PORT',
      'OLD_PORT',
      'X_TLS',
      'X_EXTRA_ONE',
      'X_UNDOCUMENTED',
    ]);
    expect(recordEnvNames(load, [{}, { X_TLS: 'true' }]).has('X_TLS_CACERT')).toBe(true);
  });

  it('names undocumented, unread and built names', () => {
    const dir = mkdtempSync(join(tmpdir(), 'settings-docs-'));
    writeFileSync(join(dir, 'README.md'), README);
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src/settings.ts'), "read('X_PORT', 'OLD_PORT', 'X_TLS', 'X_UNDOCUMENTED')");
    writeFileSync(join(dir, 'src/settings.test.ts'), "'X_EXTRA_ONE'");
    const o = { readme: join(dir, 'README.md'), load, sources: [join(dir, 'src')] };
    expect(checkSettingsDocs(o)).toEqual([
      'X_UNDOCUMENTED: read, but not in the Settings table',
      'X_TLS_CACERT: in the Settings table, but never read',
      'X_EXTRA_ONE: no quoted literal spells it whole',
      'X_TLS_CACERT: no quoted literal spells it whole',
    ]);
    expect(
      checkSettingsDocs({ ...o, envs: [{ X_TLS: 'true' }], builtFromPrefix: ['X_EXTRA_', 'X_TLS_'] }),
    ).toEqual(['X_UNDOCUMENTED: read, but not in the Settings table']);
  });
});
