import type { GitSourceStatus } from '../../sources/git-modules-source.ts';
import type { PreparedTree } from './prepare-modules-tree.ts';

/** What the debug socket shows of the source. */
export interface ModulesSourceStatus extends GitSourceStatus {
  /** The revision the operator's tasks use; behind currentRevision until the switch task ran. */
  readonly revisionInUse: string | undefined;
}

/**
 * Where new modules trees come from while the operator runs (GitOps); declared here, where the
 * operator consumes it. Every tree it offers was validated and prepared beforehand.
 */
export interface ModulesTreeSource {
  /** Calls `onNewTree` whenever a tree newer than the one in use is ready, until `stop`. */
  follow(onNewTree: () => void): void;
  /** The newest prepared tree, when it is not the one in use. */
  next(): PreparedTree | undefined;
  /** The operator now serves `revision`: its directories must stay until another one is in use. */
  markInUse(revision: string): void;
  /**
   * The operator could not use `revision` after all (the values store refused it with the config
   * values of the moment): it is dropped, counted and shown as the source's last error.
   */
  refuse(revision: string, error: Error): void;
  status(): ModulesSourceStatus;
  /** Fetches now instead of at the next poll (a Git webhook, a reconcile request); bursts coalesce. */
  requestSync(): void;
  stop(): Promise<void>;
}
