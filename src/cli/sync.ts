import { parseArgs } from 'node:util';
import { KaddonError } from '../core/errors.ts';
import { loadJqEngine } from '../jq/jq-engine.ts';
import { SettingReader } from '../config/setting-reader.ts';
import { jqTimeoutMs } from './jq-timeout.ts';
import { stderrLogger, type CliIo } from './cli-io.ts';
import { gitSourceConfig, gitSourceOptions, gitSourceUsage, openGitSource } from './git-source.ts';
import { validateByBuild } from '../runtime/build/git-revision-tree.ts';
import { stopOnSignals, throwIfStopped } from './stop-on-signals.ts';

export const syncUsage = `Usage: kaddon sync [options]

Syncs the modules tree from Git once and exits (an init container's job): fetches the
ref, checks the revision out into <cache-dir>/revisions/<sha>, refuses symlinks that
leave it, validates it (every module loads and every enabled module renders with static
values) and points <cache-dir>/current at it. Prints the revision and the modules
directory. Exits 1 when the revision cannot be fetched or is refused; the previous
current revision is left in place.

${gitSourceUsage}

Options:
  -h, --help                 show this help`;

/** `kaddon sync`: one sync of the Git source, then exit. */
export async function runSync(args: readonly string[], io: CliIo): Promise<void> {
  const { values } = parseArgs({
    args: [...args],
    options: { ...gitSourceOptions, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    io.stdout(`${syncUsage}\n`);
    return;
  }
  const config = gitSourceConfig(values);
  const stop = stopOnSignals();
  const source = openGitSource(
    config,
    stderrLogger(io),
    validateByBuild(await loadJqEngine({ timeoutMs: jqTimeoutMs(new SettingReader(process.env)) })),
    stop.signal,
  );
  const outcome = await source.sync().finally(stop.release);
  // git was ended by the signal: say so, not the failure it caused.
  throwIfStopped(stop.signal, 'sync');
  if (outcome.kind === 'failed') throw outcome.error;
  if (outcome.kind === 'refused') throw new RevisionRefusedError(outcome.sha, outcome.error);
  io.stdout(`revision: ${outcome.revision.sha}\ndirectory: ${outcome.revision.modulesDir}\n`);
}

/** A revision that does not validate; the message says which file is wrong. */
class RevisionRefusedError extends KaddonError {
  readonly code = 'revision-refused';
  constructor(sha: string, cause: KaddonError) {
    super(`revision '${sha}': refused, ${cause.message}`, cause.hint, { cause });
  }
}
