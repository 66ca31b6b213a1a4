import { watch, type FSWatcher } from 'node:fs';
import { readFile, readdir, realpath, stat } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import {
  ConfigError,
  findDanglingReplaces,
  parseRateLimitYaml,
  type RateLimitConfig,
} from '@portcullis/config';
import type { Logger } from '@portcullis/kit';
import type { Stats } from '../stats/stats.js';
import { buildRuleSet, type RuleSet } from './rule-set.js';

export interface FileSourceOptions {
  runtimeRoot: string;
  /** The directory holding the `*.yaml` files. */
  directory: string;
  ignoreDotFiles: boolean;
  /** Also watch the directories above, up to the runtime root's parent, where a symlink swap of the root shows. */
  watchRoot: boolean;
  mergeDomains: boolean;
  /** False when the counter store cannot run token buckets: files using `burst` fail to load. */
  tokenBuckets: boolean;
  stats: Stats;
  log: Logger;
  onRules: (rules: RuleSet) => void;
  /** Quiet time after the last file-system event before reloading, so a burst of writes loads once. */
  debounceMs?: number;
}

const YAML_FILE = /\.ya?ml$/;

/**
 * Rules from YAML files in one directory, reloaded on any change to the files or the directory (write,
 * create, chmod, remove, a symlink swap inside it) and, with `watchRoot`, to the directories above it up to
 * the runtime root's parent, where a symlink swap of the root shows.
 * A load that fails keeps the previous rules, logs every problem and counts `config_load_error`.
 */
export class FileConfigSource {
  /** By the real path and inode each watches: a directory replaced under the same path is watched anew. */
  private watchers = new Map<string, FSWatcher>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private loading: Promise<boolean> | undefined;
  private loaded!: () => void;
  private readonly firstLoad = new Promise<void>((resolve) => (this.loaded = resolve));
  private readonly log: Logger;

  constructor(private readonly o: FileSourceOptions) {
    this.log = o.log.child({ component: 'config-file' });
  }

  /** Loads once and starts watching. Resolves to whether the first load succeeded. */
  async start(): Promise<boolean> {
    const ok = await this.reload();
    await this.rewatch();
    return ok;
  }

  /** Resolves once a load has succeeded. */
  firstUpdate(): Promise<void> {
    return this.firstLoad;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
  }

  /** Reads every file and swaps the rules in if all of them are valid. */
  async reload(): Promise<boolean> {
    // Loads never overlap: a change during a load schedules another after it.
    this.loading = (this.loading ?? Promise.resolve(true)).then(() => this.loadOnce());
    return this.loading;
  }

  private async loadOnce(): Promise<boolean> {
    const { stats } = this.o;
    try {
      const configs = await this.readConfigs();
      const rules = buildRuleSet(configs, {
        mergeDomains: this.o.mergeDomains,
        stats,
        tokenBuckets: this.o.tokenBuckets,
      });
      this.o.onRules(rules);
      this.loaded();
      stats.counter('config_load_success').value++;
      this.log.info({ files: configs.length, domains: rules.domains.size }, 'config loaded');
      return true;
    } catch (err: unknown) {
      stats.counter('config_load_error').value++;
      if (err instanceof ConfigError)
        this.log.error({ problems: err.problems }, 'config rejected, keeping the last good one');
      else
        this.log.error(
          { err, directory: this.o.directory },
          'config could not be read, keeping the last good one',
        );
      return false;
    }
  }

  private async readConfigs(): Promise<RateLimitConfig[]> {
    const names = (await readdir(this.o.directory)).filter(
      (n) => YAML_FILE.test(n) && !(this.o.ignoreDotFiles && n.startsWith('.')),
    );
    names.sort();
    const configs: RateLimitConfig[] = [];
    const problems: string[] = [];
    for (const name of names) {
      const path = join(this.o.directory, name);
      if (!(await stat(path)).isFile()) continue;
      try {
        const config = parseRateLimitYaml(relative(this.o.runtimeRoot, path), await readFile(path, 'utf8'));
        const dangling = findDanglingReplaces(config);
        // upstream loads these; so do we, saying what will not happen
        if (dangling.length > 0)
          this.log.warn({ problems: dangling }, 'replaces entries that replace nothing');
        configs.push(config);
      } catch (err: unknown) {
        if (!(err instanceof ConfigError)) throw err;
        problems.push(...err.problems);
      }
    }
    if (problems.length > 0) throw new ConfigError(problems);
    return configs;
  }

  private schedule(): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      void this.reload().then(() => this.rewatch());
    }, this.o.debounceMs ?? 100);
  }

  /**
   * Watches the config directory (and with `watchRoot` those above it) as they resolve now. A directory still
   * watched keeps its watcher, and new ones start before old ones stop: a change made meanwhile is not lost.
   */
  private async rewatch(): Promise<void> {
    const wanted = new Map<string, string>();
    for (let d = this.o.directory; ; d = dirname(d)) {
      const real = await realpath(d).catch(() => undefined);
      // A directory that does not exist yet: the watch on its parent reports its creation.
      const ino = real && (await stat(real).catch(() => undefined))?.ino;
      if (real && ino !== undefined) wanted.set(`${real}@${ino}`, real);
      if (!this.o.watchRoot || d === dirname(this.o.runtimeRoot) || d === dirname(d)) break;
    }
    if (this.closed) return;
    for (const [key, dir] of wanted) {
      if (this.watchers.has(key)) continue;
      try {
        const w = watch(dir, () => this.schedule());
        w.on('error', () => this.schedule());
        this.watchers.set(key, w);
      } catch {
        // gone since: the watch on its parent reports it
      }
    }
    for (const [key, w] of this.watchers) {
      if (wanted.has(key)) continue;
      w.close();
      this.watchers.delete(key);
    }
  }
}
