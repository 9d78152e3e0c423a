import { GitModulesSource, type GitRevision } from '../sources/git-modules-source.ts';
import type { CliIo } from './cli-io.ts';
import { stderrLogger } from './cli-io.ts';
import { gitSourceConfig } from './git-source.ts';
import { UsageError } from './usage-error.ts';

/**
 * `build --git-url`: checks the revision out (symlinks leaving it refused) with no validation of
 * its own, since the build that follows reports every problem with its file.
 */
export async function checkoutGitSource(
  flags: Readonly<Record<string, unknown>>,
  positionals: readonly string[],
  io: CliIo,
  stopSignal?: AbortSignal,
): Promise<GitRevision> {
  if (positionals.length > 0)
    throw new UsageError('name a modules directory or --git-url, not both', 'Run `kaddon build --help`.');
  const source = new GitModulesSource({
    config: gitSourceConfig(flags),
    logger: stderrLogger(io),
    validate: () => Promise.resolve(),
    ...(stopSignal === undefined ? {} : { stopSignal }),
  });
  const outcome = await source.sync();
  if (outcome.kind === 'failed' || outcome.kind === 'refused') throw outcome.error;
  return outcome.revision;
}
