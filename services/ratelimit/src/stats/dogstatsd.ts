import type { Mogrifier } from './stats-settings.js';

/** A statistic's name and tags as a DogStatsD line carries them. */
export interface DogStatsdName {
  name: string;
  tags: string[];
}

const PLACEHOLDER = /\$\d+/g;

/**
 * Upstream's `godogstats` renaming: the first mogrifier whose pattern matches a name (anywhere in it, as Go's
 * `FindStringSubmatch`) renames it and adds its tags, `$n` replaced by the n-th group (kept as written past
 * the last group); a name no pattern matches is sent as it is.
 */
export function createMogrify(mogrifiers: readonly Mogrifier[]): (name: string) => DogStatsdName {
  const compiled = mogrifiers.map((m) => ({ ...m, regex: new RegExp(m.pattern) }));
  const expand = (template: string, groups: RegExpExecArray): string =>
    template.replace(PLACEHOLDER, (p) => {
      const i = Number(p.slice(1));
      return i < groups.length ? (groups[i] ?? '') : p;
    });
  return (name) => {
    for (const m of compiled) {
      const groups = m.regex.exec(name);
      if (!groups) continue;
      return { name: expand(m.name, groups), tags: m.tags.map(([k, v]) => `${k}:${expand(v, groups)}`) };
    }
    return { name, tags: [] };
  };
}

/**
 * `EXTRA_TAGS` as upstream's gostats writes them: empty ones left out, sorted by key, `.`, `:`, `|` in values
 * to `_`. Plain statsd gets them in the name (`.__k=v`), DogStatsD as `k:v` tags (what `godogstats` makes
 * of that name).
 */
export function cleanTags(tags: Readonly<Record<string, string>>): Array<[key: string, value: string]> {
  return Object.entries(tags)
    .filter(([k, v]) => k !== '' && v !== '')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => [k, v.replace(/[.:|]/g, '_')]);
}
