import { SettingsError } from '@portcullis/kit';

/** The problems `load(env)` refuses `env` with (its `SettingsError`'s), or none when it loads. */
export function settingsProblems(
  load: (env: Record<string, string>) => unknown,
  env: Record<string, string>,
): readonly string[] {
  try {
    load(env);
  } catch (err: unknown) {
    if (err instanceof SettingsError) return err.problems;
    throw err;
  }
  return [];
}
