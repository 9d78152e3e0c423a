import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { isJsonObject, scalarText, type JsonObject } from '../../core/json.ts';
import { gatedCommand, openGate } from '../../processes/gated-spawn.ts';
import { makeTempDir } from '../../processes/temp-dir.ts';
import { HelmError } from './helm-error.ts';

/** Release states as helm stores them (helm's release/status.go). */
export type ReleaseState =
  | 'unknown'
  | 'deployed'
  | 'uninstalled'
  | 'superseded'
  | 'failed'
  | 'uninstalling'
  | 'pending-install'
  | 'pending-upgrade'
  | 'pending-rollback';

export interface ReleaseStatus {
  readonly status: ReleaseState;
  readonly revision: number;
}

/** The newest revision with the values it was installed with. */
export interface ReleaseDetails extends ReleaseStatus {
  /** The user-supplied values (`helm get values`). */
  readonly values: JsonObject;
  /**
   * Why the revision is not one kaddon wrote for its module (another chart upgraded by hand with
   * `--reuse-values`, docs/delivery.md "Revisions kaddon did not write"); undefined when it is, or
   * when it was not checked.
   */
  readonly foreign?: string;
}

export interface ReleaseRevision extends ReleaseStatus {
  readonly description: string;
}

export interface UpgradeInstallOptions {
  /** Written to a private temp file, passed with `--values`, removed afterwards. */
  readonly values: JsonObject;
  /** helm's `--timeout` for each Kubernetes operation (HELM_TIMEOUT). */
  readonly timeoutSeconds: number;
  /** Wait until the resources are ready (`--wait=watcher`); helm 4 waits for hooks only by default. */
  readonly wait?: boolean;
  /**
   * Whether an object the release no longer holds is now another release's (docs/delivery.md
   * "Objects moving between modules"): it is handed over, not deleted. Only the release engine,
   * which reads helm's records itself, honours it.
   */
  readonly handedOver?: (object: JsonObject) => boolean;
  /**
   * `--force-conflicts`: the apply takes the fields other field managers changed by hand, as the
   * end of maintenance does (docs/operations.md "Hands off").
   */
  readonly forceConflicts?: boolean;
  /**
   * The converge's list just showed no record of this release (deliver-module.ts `knownAbsent`):
   * the release engine writes its first revision without reading the history first. Only the
   * release engine honours it.
   */
  readonly knownAbsent?: boolean;
}

export interface HelmClientOptions {
  /** The helm binary. */
  readonly helmPath: string;
  /** Passed as KUBECONFIG; without it helm uses the in-cluster service account. */
  readonly kubeconfigPath?: string;
  /** HELM_HISTORY_MAX; default 10 as in addon-operator. */
  readonly historyMax?: number;
  /** Where values files are written; default the OS temp dir. */
  readonly tmpRoot?: string;
  /** More environment for helm, e.g. HELM_DRIVER. */
  readonly env?: Readonly<Record<string, string>>;
  /** How long one `helm template` may run (KADDON_HELM_TEMPLATE_TIMEOUT); default 30 s. */
  readonly templateTimeoutMs?: number;
  /**
   * Renders charts in place of `helm template` (the chart renderer, docs/delivery.md "Chart modules
   * without a process per render"); `helm template` when not given.
   */
  readonly templater?: {
    template(release: string, namespace: string, chartDir: string, values: JsonObject): Promise<string>;
  };
  /**
   * Aborted when kaddon stops (SIGTERM, SIGINT; the operator: once its shutdown grace for the running
   * work is over): the running helm's process group is ended, and no helm starts any more.
   */
  readonly stopSignal?: AbortSignal;
}

/**
 * How long `helm template` may run by default: a chart renders in well under a second, and a
 * template that recurses without end must not hold a build or the operator's queue for minutes
 * (docs/modules.md "Limits on input").
 */
export const DEFAULT_HELM_TEMPLATE_TIMEOUT_MS = 30_000;
/**
 * Between SIGTERM and SIGKILL of helm's process group: on SIGTERM an upgrade, install or rollback
 * records its release as failed, which the next upgrade goes on from; a SIGKILL leaves it pending.
 */
const KILL_GRACE_MS = 2_000;

/** Every state, so `helm list` (which shows deployed and failed only by default) hides none. */
const ALL_STATES = ['--deployed', '--failed', '--pending', '--superseded', '--uninstalling', '--uninstalled'];
/** Read-only helm commands finish in well under a second; this only ends a hung process. */
const QUERY_TIMEOUT_MS = 120_000;
/**
 * The process gets this long beyond helm's own --timeout before its group is ended (SIGTERM, then
 * SIGKILL after KILL_GRACE_MS): helm stops waiting at its --timeout and then only records the
 * outcome, a few requests. A hung helm thus holds its module's lane at most 5 s past HELM_TIMEOUT
 * (docs/lifecycle.md "Bounds and timeouts").
 */
const PROCESS_GRACE_MS = 3_000;

/** The helm binary, run without a shell, one command per call. */
export class HelmClient {
  readonly #options: HelmClientOptions;

  constructor(options: HelmClientOptions) {
    this.#options = options;
  }

  async upgradeInstall(
    release: string,
    namespace: string,
    chartDir: string,
    options: UpgradeInstallOptions,
  ): Promise<number> {
    return withValuesFile(this.#options.tmpRoot, release, options.values, async (valuesFile) => {
      const args = ['upgrade', '--install', release, chartDir, '--namespace', namespace, '-o', 'json'];
      args.push('--values', valuesFile, '--timeout', `${options.timeoutSeconds}s`);
      args.push('--history-max', String(this.#options.historyMax ?? 10));
      // SkipCRDs and TakeOwnership as addon-operator (docs/lifecycle.md "Helm delivery"): CRDs go through
      // applyCrds.
      args.push('--skip-crds', '--take-ownership');
      // The API server checks every object (helm's server-side apply sends fieldValidation=Strict
      // either way); helm's own check first reads the cluster's OpenAPI documents, which was half
      // of an upgrade's CPU (docs/performance.md "What one helm upgrade costs").
      args.push('--disable-openapi-validation');
      if (options.wait === true) args.push('--wait=watcher');
      if (options.forceConflicts === true) args.push('--force-conflicts');
      const stdout = await this.#run(release, args, options.timeoutSeconds * 1000 + PROCESS_GRACE_MS);
      // The release helm printed: its `version` is the revision just written.
      const printed = this.#parseJson(release, args, stdout);
      return isJsonObject(printed) ? Number(printed.version) : Number.NaN;
    });
  }

  /**
   * `helm status -o json`: the newest revision's state, number and values in one helm call;
   * undefined when there is no release of that name.
   */
  async release(release: string, namespace: string): Promise<ReleaseDetails | undefined> {
    const args = ['status', release, '--namespace', namespace, '-o', 'json'];
    let parsed: unknown;
    try {
      parsed = await this.#runJson(release, args);
    } catch (error: unknown) {
      if (error instanceof HelmError && /release: not found/.test(error.stderr)) return undefined;
      throw error;
    }
    if (!isJsonObject(parsed) || !isJsonObject(parsed.info))
      throw new HelmError(
        release,
        args.join(' '),
        'printed no release',
        JSON.stringify(parsed).slice(0, 400),
      );
    return {
      status: scalarText(parsed.info.status) as ReleaseState,
      revision: Number(parsed.version),
      values: isJsonObject(parsed.config) ? parsed.config : {},
    };
  }

  /** The newest revision's state, or undefined when there is no release of that name. */
  async status(release: string, namespace: string): Promise<ReleaseStatus | undefined> {
    const filter = `^${release.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;
    const rows = await this.#listRows(release, namespace, ['--filter', filter]);
    const row = rows.find((entry) => entry.name === release);
    return row && { status: row.status, revision: row.revision };
  }

  /** Oldest revision first; empty when there is no release. */
  async history(release: string, namespace: string): Promise<ReleaseRevision[]> {
    if (!(await this.status(release, namespace))) return [];
    const args = ['history', release, '--namespace', namespace, '--max', '256', '-o', 'json'];
    const parsed = await this.#runJson(release, args);
    const rows = Array.isArray(parsed) ? parsed.filter(isJsonObject) : [];
    return rows.map((row) => ({
      revision: Number(row.revision),
      status: scalarText(row.status) as ReleaseState,
      description: typeof row.description === 'string' ? row.description : '',
    }));
  }

  /** The manifest helm stored for the newest (or the given) revision, as `helm get manifest` prints it. */
  async getManifest(release: string, namespace: string, revision?: number): Promise<string> {
    const args = ['get', 'manifest', release, '--namespace', namespace];
    if (revision !== undefined) args.push('--revision', String(revision));
    return this.#run(release, args);
  }

  /** The user-supplied values of the newest revision. */
  async getValues(release: string, namespace: string): Promise<JsonObject> {
    const parsed = await this.#runJson(release, [
      'get',
      'values',
      release,
      '--namespace',
      namespace,
      '-o',
      'json',
    ]);
    return isJsonObject(parsed) ? parsed : {};
  }

  /** Removes the release and its history; an absent release is fine. */
  async uninstall(release: string, namespace: string, timeoutSeconds = 300): Promise<void> {
    const args = ['uninstall', release, '--namespace', namespace, '--ignore-not-found'];
    args.push('--timeout', `${timeoutSeconds}s`);
    await this.#run(release, args, timeoutSeconds * 1000 + PROCESS_GRACE_MS);
  }

  /** Names of the releases in the namespace, in every state, sorted. */
  async list(namespace: string): Promise<string[]> {
    const rows = await this.#listRows('*', namespace, []);
    return rows
      .map((row) => row.name)
      .filter((name) => name !== '')
      .sort();
  }

  async rollback(release: string, namespace: string, revision: number, timeoutSeconds = 300): Promise<void> {
    const args = ['rollback', release, String(revision), '--namespace', namespace];
    args.push('--timeout', `${timeoutSeconds}s`, '--history-max', String(this.#options.historyMax ?? 10));
    await this.#run(release, args, timeoutSeconds * 1000 + PROCESS_GRACE_MS);
  }

  /**
   * `helm template`: the chart rendered offline with the values, hooks included, CRDs not; by the
   * chart renderer when one is given.
   */
  async template(release: string, namespace: string, chartDir: string, values: JsonObject): Promise<string> {
    if (this.#options.templater !== undefined)
      return this.#options.templater.template(release, namespace, chartDir, values);
    const timeoutMs = this.#options.templateTimeoutMs ?? DEFAULT_HELM_TEMPLATE_TIMEOUT_MS;
    return withValuesFile(this.#options.tmpRoot, release, values, (valuesFile) =>
      this.#run(
        release,
        templateArgs(release, chartDir, namespace, valuesFile),
        timeoutMs,
        'KADDON_HELM_TEMPLATE_TIMEOUT',
      ),
    );
  }

  async #listRows(
    subject: string,
    namespace: string,
    extra: readonly string[],
  ): Promise<{ name: string; status: ReleaseState; revision: number }[]> {
    const args = ['list', '--namespace', namespace, ...ALL_STATES, '--max', '0', '-o', 'json', ...extra];
    const parsed = await this.#runJson(subject, args);
    const rows = Array.isArray(parsed) ? parsed.filter(isJsonObject) : [];
    return rows.map((row) => ({
      name: typeof row.name === 'string' ? row.name : '',
      status: scalarText(row.status) as ReleaseState,
      revision: Number(row.revision),
    }));
  }

  async #runJson(release: string, args: readonly string[]): Promise<unknown> {
    return this.#parseJson(release, args, await this.#run(release, args));
  }

  #parseJson(release: string, args: readonly string[], stdout: string): unknown {
    try {
      return JSON.parse(stdout) as unknown;
    } catch (error: unknown) {
      throw new HelmError(release, args.join(' '), 'printed output that is not JSON', stdout.slice(0, 400), {
        cause: error,
      });
    }
  }

  /**
   * Runs helm in a process group of its own, so that a timeout or kaddon stopping ends helm and
   * anything it started (SIGTERM, then SIGKILL), and no helm outlives kaddon. `setting` names what
   * sets the time limit, for the message.
   */
  async #run(
    release: string,
    args: readonly string[],
    timeoutMs = QUERY_TIMEOUT_MS,
    setting?: string,
  ): Promise<string> {
    const env: Record<string, string> = { ...this.#options.env, HELM_NO_PLUGINS: '1' };
    if (this.#options.kubeconfigPath !== undefined) env.KUBECONFIG = this.#options.kubeconfigPath;
    const stop = this.#options.stopSignal;
    if (stop?.aborted === true)
      throw new HelmError(release, args.join(' '), 'not run: kaddon is stopping', '', { ended: 'stop' });
    const command = gatedCommand(this.#options.helmPath, args, { ...process.env, ...env });
    const subprocess = execa(command.file, command.args, {
      env,
      stdin: command.stdin,
      reject: false,
      detached: true,
      stripFinalNewline: false,
      maxBuffer: MAX_OUTPUT_BYTES,
    });
    const groupGone = openGate(command, subprocess);
    let ended: 'timeout' | 'stop' | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    const endGroup = (reason: 'timeout' | 'stop'): void => {
      ended ??= reason;
      signalGroup(subprocess.pid, 'SIGTERM');
      // The await below keeps kaddon alive until helm has exited, so this timer still fires.
      killTimer ??= setTimeout(() => {
        signalGroup(subprocess.pid, 'SIGKILL');
        groupGone();
      }, KILL_GRACE_MS).unref();
    };
    const timer = setTimeout(() => {
      endGroup('timeout');
    }, timeoutMs);
    const onStop = (): void => {
      endGroup('stop');
    };
    stop?.addEventListener('abort', onStop, { once: true });
    const result = await subprocess.finally(() => {
      clearTimeout(timer);
      stop?.removeEventListener('abort', onStop);
      // helm starts no processes of its own (plugins are off): its group ends with it.
      if (killTimer === undefined) groupGone();
    });
    if (result.failed || ended !== undefined) {
      const limit = timeLimit(timeoutMs, setting);
      const problem =
        ended === 'timeout'
          ? `did not finish within ${limit}`
          : ended === 'stop'
            ? 'was ended: kaddon is stopping'
            : result.exitCode === undefined
              ? `could not run (${result.shortMessage})`
              : `exited with code ${result.exitCode}`;
      throw new HelmError(release, args.join(' '), problem, result.stderr, { cause: result, ended, limit });
    }
    return result.stdout;
  }
}

/** The most helm may print on stdout or stderr; a chart's manifest is far smaller. */
const MAX_OUTPUT_BYTES = 256 * 1024 * 1024;

/** A negative pid addresses the process group (kill(2)); a group already gone is fine. */
function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group has exited.
  }
}

/** `2.5 s (KADDON_HELM_TEMPLATE_TIMEOUT)`: a time limit as helm messages name it, with its setting. */
export function timeLimit(ms: number, setting?: string): string {
  return `${String(Math.round(ms / 100) / 10)} s${setting === undefined ? '' : ` (${setting})`}`;
}

/** `helm template`'s arguments, also the command a chart renderer's messages name. */
export function templateArgs(
  release: string,
  chartDir: string,
  namespace: string,
  valuesFile: string,
): string[] {
  return ['template', release, chartDir, '--namespace', namespace, '--values', valuesFile];
}

/**
 * Runs `use` with a values file holding `values`, in a private temp directory (mkdtemp makes it
 * 0700, the file is 0600: values may hold secrets) removed afterwards, even if kaddon is killed.
 */
export async function withValuesFile<T>(
  tmpRoot: string | undefined,
  release: string,
  values: JsonObject,
  use: (file: string) => Promise<T>,
): Promise<T> {
  const dir = await makeTempDir(path.join(tmpRoot ?? os.tmpdir(), `kaddon-values-${release}-`));
  try {
    const file = path.join(dir.path, 'values.json');
    await writeFile(file, JSON.stringify(values), { mode: 0o600 });
    return await use(file);
  } finally {
    await dir.remove();
  }
}
