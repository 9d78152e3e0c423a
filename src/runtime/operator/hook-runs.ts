import type { HookRunResult } from '../../hooks/run/run-hook.ts';

/** One run of a hook as the status page lists it (docs/ui.md "Views"). */
export interface HookRunRecord {
  /** What ran it: a lifecycle binding (`beforeHelm`), or the names of its kubernetes or schedule bindings. */
  readonly binding: string;
  /** ISO time. */
  readonly startedAt: string;
  readonly durationMs: number;
  /** `ok`, `exit N`, `signal X`, `timed out`, or the error of a run that did not start or left bad output files. */
  readonly outcome: string;
  /** The last lines of stdout and stderr as the hook wrote them; masked and cleaned where they are shown. */
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs kept per hook. Each keeps two tails of at most 2,048 characters, so a hook costs at most
 * 10 × 2 × 2,048 characters of output, whatever it prints.
 */
const RUNS_PER_HOOK = 10;

/**
 * The last runs of each hook, newest first, in memory only (docs/ui.md): global hooks under the
 * module `undefined`. Hooks the operator no longer has are dropped with `retain`.
 */
export class HookRuns {
  readonly #runs = new Map<string | undefined, Map<string, HookRunRecord[]>>();

  add(module: string | undefined, hook: string, run: HookRunRecord): void {
    let hooks = this.#runs.get(module);
    if (hooks === undefined) {
      hooks = new Map();
      this.#runs.set(module, hooks);
    }
    const runs = [run, ...(hooks.get(hook) ?? [])];
    hooks.set(hook, runs.slice(0, RUNS_PER_HOOK));
  }

  /** The hook's last runs, newest first. */
  last(module: string | undefined, hook: string): readonly HookRunRecord[] {
    return this.#runs.get(module)?.get(hook) ?? [];
  }

  /** Keeps the runs of the hooks `isKept` names, and forgets every other hook's. */
  retain(isKept: (module: string | undefined, hook: string) => boolean): void {
    for (const [module, hooks] of this.#runs) {
      for (const hook of hooks.keys()) if (!isKept(module, hook)) hooks.delete(hook);
      if (hooks.size === 0) this.#runs.delete(module);
    }
  }
}

/** A finished run as the ring keeps it; `endedAt` in epoch milliseconds. */
export function hookRunRecord(
  binding: string,
  result: HookRunResult,
  timing: { readonly durationMs: number; readonly endedAt: number },
): HookRunRecord {
  const durationMs = Math.round(timing.durationMs);
  return {
    binding,
    startedAt: new Date(timing.endedAt - durationMs).toISOString(),
    durationMs,
    outcome: outcomeOf(result),
    stdout: result.output.stdout,
    stderr: result.output.stderr,
  };
}

function outcomeOf(result: HookRunResult): string {
  if (result.ok) return 'ok';
  if (result.timedOut) return 'timed out';
  if (result.signal !== undefined) return `signal ${result.signal}`;
  if (result.exitCode !== undefined && result.exitCode !== 0) return `exit ${String(result.exitCode)}`;
  return result.error?.message ?? 'failed';
}
