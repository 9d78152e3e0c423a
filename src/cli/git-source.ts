import type { Logger } from '../observability/logger.ts';
import { GitModulesSource, type ValidateRevision } from '../sources/git-modules-source.ts';
import {
  GIT_SOURCE_SETTINGS,
  loadGitSourceConfig,
  type GitSourceConfig,
} from '../sources/git-source-config.ts';

/** parseArgs options for the Git source flags, shared by `sync` and `build`. */
export const gitSourceOptions = Object.fromEntries(
  Object.values(GIT_SOURCE_SETTINGS).map(({ flag }) => [flag, { type: 'string' as const }]),
) as Record<(typeof GIT_SOURCE_SETTINGS)[keyof typeof GIT_SOURCE_SETTINGS]['flag'], { type: 'string' }>;

export const gitSourceUsage = `Git source (each flag also reads the variable named after it):
  --git-url URL              the modules repository (MODULES_GIT_URL): https://, ssh://,
                             git@host:path, git://, file://
  --git-ref REF              branch, tag or commit (MODULES_GIT_REF; default: the remote's
                             default branch)
  --git-subpath DIR          the modules tree inside the repository (MODULES_GIT_SUBPATH);
                             components/ and global-hooks/ beside it are used too
  --git-cache-dir DIR        mirror, revisions/<sha> and the current link
                             (MODULES_GIT_CACHE_DIR; default $TMPDIR/kaddon-modules-git)
  --git-poll-interval D      30s, 5m (MODULES_GIT_POLL_INTERVAL; the operator's polling)
  --git-username NAME        HTTPS user (MODULES_GIT_USERNAME)
  --git-password-file FILE   HTTPS basic-auth password (MODULES_GIT_PASSWORD_FILE)
  --git-token-file FILE      HTTPS token (MODULES_GIT_TOKEN_FILE; user x-access-token
                             unless --git-username)
  --git-ssh-key-file FILE    SSH private key (MODULES_GIT_SSH_KEY_FILE)
  --git-known-hosts-file F   SSH known_hosts, checked strictly (MODULES_GIT_KNOWN_HOSTS_FILE)`;

/** The Git source settings from flags, then the environment. */
export function gitSourceConfig(flags: Readonly<Record<string, unknown>>): GitSourceConfig {
  const strings = Object.fromEntries(
    Object.entries(flags).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
  return loadGitSourceConfig(process.env, strings);
}

export function openGitSource(
  config: GitSourceConfig,
  logger: Logger,
  validate: ValidateRevision,
  stopSignal?: AbortSignal,
): GitModulesSource {
  return new GitModulesSource({
    config,
    logger,
    validate,
    ...(stopSignal === undefined ? {} : { stopSignal }),
  });
}
