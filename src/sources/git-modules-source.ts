import { rmSync } from 'node:fs';
import path from 'node:path';
import { syncDelayMs } from '../core/backoff.ts';
import { sleep, systemClock, type Clock } from '../core/clock.ts';
import { errorMessage, KaddonError } from '../core/errors.ts';
import type { Logger } from '../observability/logger.ts';
import { checkSymlinks } from './check-symlinks.ts';
import { createGitEnvironment } from './git-environment.ts';
import { GitMirror } from './git-mirror.ts';
import { createGitRunner } from './git-runner.ts';
import type { GitSourceConfig } from './git-source-config.ts';
import { GitSourceError } from './git-source-error.ts';
import { createRedactor, redactUrlUserInfo, type Redact } from './redact-secrets.ts';
import { RevisionStore } from './revision-store.ts';

/** One checked-out, validated revision. Its directories never change once it is returned. */
export interface GitRevision {
  readonly sha: string;
  /** The checkout of the whole repository. */
  readonly root: string;
  /** The modules tree: root + MODULES_GIT_SUBPATH. */
  readonly modulesDir: string;
}

/** What the debug socket shows. */
export interface GitSourceStatus {
  readonly url: string;
  readonly ref: string | undefined;
  readonly currentRevision: string | undefined;
  readonly lastError: string | undefined;
  /** ISO time of the last sync that left the remote's revision in use. */
  readonly lastSyncTime: string | undefined;
}

export type SyncOutcome =
  | { readonly kind: 'unchanged'; readonly revision: GitRevision }
  | { readonly kind: 'updated'; readonly revision: GitRevision; readonly previous: GitRevision | undefined }
  /** The remote's revision cannot be used (it does not validate); the current one stays. */
  | { readonly kind: 'refused'; readonly sha: string; readonly error: KaddonError }
  /** The remote or the mirror failed; retried with backoff. */
  | { readonly kind: 'failed'; readonly error: GitSourceError };

/** Throws (a KaddonError naming the file) when a revision must not be used. */
export type ValidateRevision = (revision: GitRevision) => Promise<void>;

/** The git metrics; OperatorMetrics has them. */
export interface GitSyncMetrics {
  gitRevision(sha: string): void;
  gitSyncSucceeded(unixSeconds: number): void;
  gitSyncError(): void;
}

export type OnNewRevision = (revision: GitRevision) => void | Promise<void>;

export interface GitModulesSourceOptions {
  readonly config: GitSourceConfig;
  readonly validate: ValidateRevision;
  readonly logger: Logger;
  readonly metrics?: GitSyncMetrics;
  /** Revisions a reader still uses besides the current and previous ones: never pruned. */
  readonly keep?: () => readonly string[];
  /** The longest wait between failed syncs (default 5 minutes). */
  readonly maxBackoffMs?: number;
  /** Polls and the time of the last sync (docs/architecture.md "Where things live"). */
  readonly clock?: Clock;
  /** Ends a running git process: a one-shot command stopped by SIGTERM or SIGINT leaves none behind. */
  readonly stopSignal?: AbortSignal;
}

/**
 * The modules tree from a Git repository: `start` syncs, then polls; every new revision is checked
 * out into its own directory, validated, and only then made current. A reader calls `current()`
 * once per reconcile and uses that revision's directories throughout.
 */
export class GitModulesSource {
  readonly #options: GitModulesSourceOptions;
  readonly #store: RevisionStore;
  readonly #subject: string;
  readonly #refused = new Map<string, KaddonError>();
  #current: GitRevision | undefined;
  #lastError: string | undefined;
  #lastSyncTime: Date | undefined;
  #failures = 0;
  #running: Promise<SyncOutcome> | undefined;
  #loop: Promise<void> | undefined;
  #abort = new AbortController();
  /** Aborted by `requestSync` to cut the poll's wait short. */
  #wake = new AbortController();
  /** A sync was asked for (a Git webhook) and has not started yet. */
  #syncRequested = false;
  /** When the poll loop last started a sync, in ms since the epoch. */
  #lastSyncStart = 0;

  constructor(options: GitModulesSourceOptions) {
    this.#options = options;
    this.#store = new RevisionStore(options.config.cacheDir);
    this.#subject = `git source '${redactUrlUserInfo(options.config.url)}'`;
    const cached = this.#store.readCurrent();
    if (cached !== undefined) this.#current = this.#revision(cached);
  }

  /** The revision in use; undefined until the first good sync (or a good one cached by an earlier run). */
  current(): GitRevision | undefined {
    return this.#current;
  }

  status(): GitSourceStatus {
    return {
      url: redactUrlUserInfo(this.#options.config.url),
      ref: this.#options.config.ref,
      currentRevision: this.#current?.sha,
      lastError: this.#lastError,
      lastSyncTime: this.#lastSyncTime?.toISOString(),
    };
  }

  /**
   * Syncs once, then keeps polling until `stop`. `onNewRevision` gets the revision in use after
   * the first sync (when there is one) and every later new one. Resolves after the first sync.
   */
  async start(onNewRevision: OnNewRevision): Promise<SyncOutcome> {
    if (this.#loop) throw new Error('GitModulesSource.start: already started');
    this.#abort = new AbortController();
    const first = await this.sync();
    if (this.#current) await this.#notify(onNewRevision, this.#current);
    this.#loop = this.#poll(onNewRevision);
    return first;
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    await this.#loop;
    this.#loop = undefined;
  }

  /** One sync; concurrent calls share it. Never throws for a remote or revision problem. */
  sync(): Promise<SyncOutcome> {
    this.#running ??= this.#syncOnce().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /**
   * Syncs now instead of at the next poll (a Git webhook, docs/git-webhook.md). Requests coalesce:
   * any number of them while a sync runs, or within REQUESTED_SYNC_SPACING_MS of its start, make
   * one more sync, started that long after the previous one.
   */
  requestSync(): void {
    this.#syncRequested = true;
    this.#wake.abort();
  }

  async #poll(onNewRevision: OnNewRevision): Promise<void> {
    const { pollIntervalMs } = this.#options.config;
    const clock = this.#options.clock ?? systemClock;
    while (!this.#isStopped()) {
      if (!this.#syncRequested) {
        this.#wake = new AbortController();
        await sleep(
          clock,
          syncDelayMs(pollIntervalMs, this.#failures, this.#options.maxBackoffMs ?? 300_000),
          AbortSignal.any([this.#abort.signal, this.#wake.signal]),
        );
      }
      if (this.#syncRequested) await sleep(clock, this.#spacingLeftMs(), this.#abort.signal);
      if (this.#isStopped()) return;
      const trigger = this.#syncRequested ? 'request' : 'poll';
      this.#syncRequested = false;
      this.#lastSyncStart = this.#nowMs();
      const outcome = await this.sync();
      this.#options.logger.debug('git source: synced', { trigger, outcome: outcome.kind });
      if (outcome.kind === 'updated') await this.#notify(onNewRevision, outcome.revision);
    }
  }

  /** How long a requested sync still waits so that syncs start at most every REQUESTED_SYNC_SPACING_MS. */
  #spacingLeftMs(): number {
    return Math.max(0, this.#lastSyncStart + REQUESTED_SYNC_SPACING_MS - this.#nowMs());
  }

  #nowMs(): number {
    return (this.#options.clock ?? systemClock).now();
  }

  #isStopped(): boolean {
    return this.#abort.signal.aborted;
  }

  async #syncOnce(): Promise<SyncOutcome> {
    const env = createGitEnvironment(this.#options.config.credentials, this.#options.config.cacheDir);
    const redact = createRedactor(env.secrets);
    const stopSignal = this.#options.stopSignal;
    const git = createGitRunner({
      environment: env,
      redact,
      subject: this.#subject,
      ...(stopSignal === undefined ? {} : { stopSignal }),
    });
    const mirrorDir = path.join(this.#options.config.cacheDir, 'mirror.git');
    const mirror = new GitMirror(mirrorDir, this.#options.config.url, git, this.#subject);
    let sha: string | undefined;
    try {
      sha = mirror.resolveRef(await mirror.listRemote(), this.#options.config.ref);
      if (sha === this.#current?.sha) return this.#succeeded({ kind: 'unchanged', revision: this.#current });
      const refused = this.#refused.get(sha);
      if (refused) return this.#failed({ kind: 'refused', sha, error: refused }, redact, false);
      const candidate = await this.#checkout(mirror, sha);
      const invalid = await this.#validate(candidate);
      if (invalid) return this.#failed({ kind: 'refused', sha, error: invalid }, redact, true);
      return this.#succeeded(this.#switchTo(candidate));
    } catch (error: unknown) {
      if (!(error instanceof GitSourceError)) throw error;
      if (error.code !== 'symlink-escapes' || sha === undefined)
        return this.#failed({ kind: 'failed', error }, redact, true);
      this.#refused.set(sha, error);
      return this.#failed({ kind: 'refused', sha, error }, redact, true);
    }
  }

  /** The tree of `sha` in its own directory, checked out whole before it appears there. */
  async #checkout(mirror: GitMirror, sha: string): Promise<GitRevision> {
    if (this.#store.has(sha)) return this.#revision(sha);
    await mirror.ensureCommit(sha);
    const staged = this.#store.stagingDir(sha);
    try {
      await mirror.exportTree(sha, staged).catch(async () => {
        // The commit is there but a tree or blob is not: the mirror is damaged, so start it again.
        rmSync(staged, { recursive: true, force: true });
        await mirror.recreate();
        await mirror.ensureCommit(sha);
        await mirror.exportTree(sha, staged);
      });
      checkSymlinks(staged, `${this.#subject} revision ${sha}`);
      this.#store.publish(sha, staged);
    } finally {
      rmSync(staged, { recursive: true, force: true });
    }
    return this.#revision(sha);
  }

  /** The validation error, or undefined; a refused revision's directory is deleted. */
  async #validate(candidate: GitRevision): Promise<KaddonError | undefined> {
    try {
      await this.#options.validate(candidate);
      return undefined;
    } catch (cause: unknown) {
      const error =
        cause instanceof KaddonError
          ? cause
          : new GitSourceError(
              'revision-invalid',
              `${this.#subject} revision ${candidate.sha}`,
              `the validation failed: ${errorMessage(cause)}`,
              '',
              { cause },
            );
      this.#refused.set(candidate.sha, error);
      this.#store.remove(candidate.sha);
      return error;
    }
  }

  #switchTo(candidate: GitRevision): SyncOutcome {
    const previous = this.#current;
    this.#store.pointCurrent(candidate.sha);
    this.#current = candidate;
    this.#store.prune([
      candidate.sha,
      ...(previous ? [previous.sha] : []),
      ...(this.#options.keep?.() ?? []),
    ]);
    this.#options.metrics?.gitRevision(candidate.sha);
    this.#options.logger.info('git source: new revision in use', {
      revision: candidate.sha,
      previous: previous?.sha,
      dir: candidate.modulesDir,
    });
    return { kind: 'updated', revision: candidate, previous };
  }

  #succeeded(outcome: SyncOutcome): SyncOutcome {
    this.#lastSyncTime = new Date((this.#options.clock ?? systemClock).now());
    this.#lastError = undefined;
    this.#failures = 0;
    if (this.#current) this.#options.metrics?.gitRevision(this.#current.sha);
    this.#options.metrics?.gitSyncSucceeded(this.#lastSyncTime.getTime() / 1000);
    return outcome;
  }

  #failed(outcome: SyncOutcome & { error: KaddonError }, redact: Redact, firstTime: boolean): SyncOutcome {
    this.#lastError = redact(outcome.error.describe());
    if (outcome.kind === 'failed') this.#failures += 1;
    this.#options.metrics?.gitSyncError();
    const fields = {
      revision: outcome.kind === 'refused' ? outcome.sha : undefined,
      current: this.#current?.sha,
      file: fileOf(outcome.error),
      error: this.#lastError,
    };
    const message =
      outcome.kind === 'refused'
        ? 'git source: revision refused, the last good revision stays in use'
        : 'git source: sync failed, retrying with backoff';
    if (firstTime) this.#options.logger.error(message, fields);
    else this.#options.logger.debug(message, fields);
    return outcome;
  }

  async #notify(onNewRevision: OnNewRevision, revision: GitRevision): Promise<void> {
    try {
      await onNewRevision(revision);
    } catch (error: unknown) {
      this.#options.logger.error('git source: the new-revision handler failed', {
        revision: revision.sha,
        error: error instanceof KaddonError ? error.describe() : String(error),
      });
    }
  }

  #revision(sha: string): GitRevision {
    const root = this.#store.revisionDir(sha);
    return { sha, root, modulesDir: path.join(root, this.#options.config.subpath) };
  }
}

/**
 * The least time between two syncs the loop starts when asked (webhooks): a burst of webhooks
 * makes at most two syncs, and a flood of them cannot hammer the Git server.
 */
const REQUESTED_SYNC_SPACING_MS = 3_000;

/** The file an error names, when it names one. */
function fileOf(error: KaddonError): string | undefined {
  return 'file' in error && typeof error.file === 'string' ? error.file : undefined;
}
