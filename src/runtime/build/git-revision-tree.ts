import { existsSync } from 'node:fs';
import path from 'node:path';
import { EMPTY_CONFIG_VALUES } from '../../core/values.ts';
import type { JqEngine } from '../../jq/jq-engine.ts';
import type { GitRevision, ValidateRevision } from '../../sources/git-modules-source.ts';
import { buildTree } from './build-tree.ts';
import { componentRoots } from './component-roots.ts';

/** The folders beside the modules tree a revision carries: global hooks and shared components. */
export function globalHooksDirOf(revision: GitRevision): string | undefined {
  const dir = path.join(revision.modulesDir, '..', 'global-hooks');
  return existsSync(dir) ? dir : undefined;
}

/**
 * A revision is good when its tree builds: every module, kustomization, values file and schema
 * loads and every enabled module renders with the static values (no hooks, no config values).
 */
export function validateByBuild(jq: JqEngine): ValidateRevision {
  return async (revision) => {
    await buildTree({
      dirs: [revision.modulesDir],
      config: EMPTY_CONFIG_VALUES,
      globalHooksDir: globalHooksDirOf(revision),
      sharedComponentRoots: componentRoots(undefined, [revision.modulesDir]),
      jq,
    });
  };
}
