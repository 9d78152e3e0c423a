import { errorMessage } from '../../core/errors.ts';
import type { ConfigValues } from '../../core/values.ts';
import type { HookRunDeps } from '../../hooks/run/run-hook-deps.ts';
import type { JqEngine } from '../../jq/jq-engine.ts';
import type { Logger } from '../../observability/logger.ts';
import { MemoryConfigStore } from '../memory-config-store.ts';
import type { ModulesSourceStatus, ModulesTreeSource } from './modules-tree-source.ts';
import { prepareModulesTree, treeValues, type PreparedTree } from './prepare-modules-tree.ts';
import { ValuesStore } from '../values-store.ts';
import { GitModulesSource, type GitRevision, type GitSyncMetrics } from '../../sources/git-modules-source.ts';
import type { GitSourceConfig } from '../../sources/git-source-config.ts';
import { componentRoots } from '../build/component-roots.ts';
import { globalHooksDirOf, validateByBuild } from '../build/git-revision-tree.ts';

export interface OperatorGitSourceOptions {
  readonly config: GitSourceConfig;
  readonly jq: JqEngine;
  readonly runDeps: HookRunDeps;
  readonly logger: Logger;
  /** UNNUMBERED_MODULE_ORDER, for every revision's tree. */
  readonly unnumberedOrder?: number;
  readonly metrics: GitSyncMetrics;
  /** Config values read at start: revisions are checked against them until `useStore`. */
  readonly initialConfig: ConfigValues;
}

/**
 * `kaddon operator`'s modules tree from Git (MODULES_GIT_*). A revision is used only when it
 * passes what `kaddon sync` checks (every module, kustomization, values file and schema loads;
 * every enabled module renders), every hook's `--config` loads, and the values store accepts its
 * values files and schemas with the config values of now. A refused revision is logged with its
 * file, counted (git_sync_errors_total) and shown by `kaddon git status`; the last good one stays.
 */
export class OperatorGitSource implements ModulesTreeSource {
  readonly #options: OperatorGitSourceOptions;
  readonly #source: GitModulesSource;
  /** Trees that validated, by commit, until the source makes one current. */
  readonly #validated = new Map<string, PreparedTree>();
  #newest: PreparedTree | undefined;
  #inUse: string | undefined;
  #store: ValuesStore | undefined;
  #lastError: string | undefined;
  #onNewTree: (() => void) | undefined;
  #resolveFirst: ((tree: PreparedTree) => void) | undefined;

  constructor(options: OperatorGitSourceOptions) {
    this.#options = options;
    this.#source = new GitModulesSource({
      config: options.config,
      logger: options.logger,
      metrics: options.metrics,
      validate: async (revision) => {
        this.#validated.set(revision.sha, await this.#prepare(revision));
      },
      keep: () => (this.#inUse === undefined ? [] : [this.#inUse]),
    });
  }

  /**
   * Syncs, then keeps polling; resolves with the first good tree, which is then in use, however
   * long it takes: an unreachable remote or a refused revision is retried with the source's backoff.
   */
  async start(): Promise<PreparedTree> {
    const first = new Promise<PreparedTree>((resolve) => {
      this.#resolveFirst = resolve;
    });
    await this.#source.start((revision) => this.#onRevision(revision));
    if (this.#newest === undefined)
      this.#options.logger.error('git source: no good revision yet; the operator starts on the first one', {
        url: this.status().url,
        ref: this.status().ref,
        error: this.status().lastError,
      });
    return first;
  }

  /** The store the operator opened: later revisions are checked against its config values. */
  useStore(store: ValuesStore): void {
    this.#store = store;
  }

  follow(onNewTree: () => void): void {
    this.#onNewTree = onNewTree;
    if (this.next() !== undefined) onNewTree();
  }

  next(): PreparedTree | undefined {
    return this.#newest?.revision === this.#inUse ? undefined : this.#newest;
  }

  markInUse(revision: string): void {
    this.#inUse = revision;
  }

  refuse(revision: string, error: Error): void {
    this.#options.metrics.gitSyncError();
    this.#lastError = `revision ${revision}: ${error.message}`;
    if (this.#newest?.revision === revision) this.#newest = undefined;
  }

  status(): ModulesSourceStatus {
    const status = this.#source.status();
    return { ...status, lastError: status.lastError ?? this.#lastError, revisionInUse: this.#inUse };
  }

  /** Fetches now instead of at the next poll (a Git webhook); bursts coalesce. */
  requestSync(): void {
    this.#source.requestSync();
  }

  stop(): Promise<void> {
    return this.#source.stop();
  }

  /** A revision the source made current; one cached by an earlier run is prepared here. */
  async #onRevision(revision: GitRevision): Promise<void> {
    let prepared = this.#validated.get(revision.sha);
    this.#validated.clear();
    try {
      prepared ??= await this.#prepare(revision);
      this.#lastError = undefined;
    } catch (error: unknown) {
      this.#options.metrics.gitSyncError();
      this.#lastError = errorMessage(error);
      throw error;
    }
    this.#newest = prepared;
    if (this.#resolveFirst === undefined) {
      this.#onNewTree?.();
      return;
    }
    this.#inUse = prepared.revision;
    this.#resolveFirst(prepared);
    this.#resolveFirst = undefined;
  }

  /** Throws, naming the file, when the operator must not use the revision. */
  async #prepare(revision: GitRevision): Promise<PreparedTree> {
    await validateByBuild(this.#options.jq)(revision);
    const prepared = await prepareModulesTree(
      {
        revision: revision.sha,
        modulesDir: revision.modulesDir,
        globalHooksDir: globalHooksDirOf(revision),
        sharedComponentRoots: componentRoots(undefined, [revision.modulesDir]),
      },
      this.#options,
    );
    const values = treeValues(prepared);
    const store =
      this.#store ??
      (await ValuesStore.open({
        ...values,
        configStore: new MemoryConfigStore(this.#options.initialConfig),
      }));
    store.checkModules(values);
    return prepared;
  }
}
