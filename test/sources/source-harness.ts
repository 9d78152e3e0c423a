import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { validateByBuild } from '../../src/runtime/build/git-revision-tree.ts';
import { EMPTY_CONFIG_VALUES } from '../../src/core/values.ts';
import { loadJqEngine } from '../../src/jq/jq-engine.ts';
import { createCapturingLogger, type CapturingLogger } from '../../src/observability/logger.ts';
import { createOperatorMetrics, type OperatorMetrics } from '../../src/observability/metrics.ts';
import { buildTree } from '../../src/runtime/build/build-tree.ts';
import { GitModulesSource, type GitRevision } from '../../src/sources/git-modules-source.ts';
import { loadGitSourceConfig } from '../../src/sources/git-source-config.ts';

export interface SourceUnderTest {
  readonly source: GitModulesSource;
  readonly logger: CapturingLogger;
  readonly metrics: OperatorMetrics;
  readonly cacheDir: string;
  remove(): Promise<void>;
}

/** A GitModulesSource validating with buildTree, polling every 200 ms, backoff capped at 1 s. */
export async function openSource(env: Record<string, string>): Promise<SourceUnderTest> {
  const cacheDir = mkdtempSync(path.join(tmpdir(), 'kaddon-git-cache-'));
  const logger = createCapturingLogger('debug');
  const metrics = createOperatorMetrics({ prefix: 'addon_operator_', queueActionsMetrics: false });
  const source = new GitModulesSource({
    config: loadGitSourceConfig({
      MODULES_GIT_SUBPATH: 'modules',
      MODULES_GIT_POLL_INTERVAL: '200ms',
      MODULES_GIT_CACHE_DIR: cacheDir,
      ...env,
    }),
    validate: validateByBuild(await loadJqEngine()),
    logger,
    metrics,
    maxBackoffMs: 1000,
  });
  return {
    source,
    logger,
    metrics,
    cacheDir,
    remove: async () => {
      await source.stop();
      rmSync(cacheDir, { recursive: true, force: true });
    },
  };
}

/** The rendered data of each ConfigMap of a revision, by name. */
export async function renderedConfigMaps(revision: GitRevision): Promise<Record<string, unknown>> {
  const result = await buildTree({
    dirs: [revision.modulesDir],
    config: EMPTY_CONFIG_VALUES,
    globalHooksDir: undefined,
    sharedComponentRoots: [],
    jq: await loadJqEngine(),
  });
  const out: Record<string, unknown> = {};
  for (const resources of result.rendered.slices.values())
    for (const resource of resources) {
      const obj = resource.obj as { metadata: { name: string }; data?: unknown };
      out[obj.metadata.name] = obj.data;
    }
  return out;
}

/** The text of every log entry and its fields, for "never leaks" assertions. */
export function logText(logger: CapturingLogger): string {
  return logger.entries.map((entry) => `${entry.msg} ${JSON.stringify(entry.fields)}`).join('\n');
}
