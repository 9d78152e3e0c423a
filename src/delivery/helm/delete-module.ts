import { HelmError } from './helm-error.ts';
import type { ReleaseHelm } from './recover-release.ts';

/** ModuleDelete's helm step: `helm uninstall`; a module without a release is fine (reference §6.6). */
export async function deleteModule(
  module: string,
  namespace: string,
  helm: Pick<ReleaseHelm, 'uninstall'>,
  timeoutSeconds?: number,
): Promise<void> {
  await helm.uninstall(module, namespace, timeoutSeconds);
}

export interface PurgeResult {
  /** Releases uninstalled, in the order they were. */
  readonly purged: readonly string[];
  /** Releases helm failed to uninstall; addon-operator only logs these and does not retry. */
  readonly failed: readonly HelmError[];
}

/**
 * DiscoverHelmReleases + ModulePurge (reference §6.6): every release in the namespace that no
 * module in `keep` owns is uninstalled, in reverse name order, except the release named by
 * HELM_IGNORE_RELEASE (the operator's own, when helm deployed it into the same namespace).
 */
export async function purgeReleases(
  namespace: string,
  keep: readonly string[],
  ignoreRelease: string | undefined,
  helm: Pick<ReleaseHelm, 'list' | 'uninstall'>,
): Promise<PurgeResult> {
  const releases = await helm.list(namespace);
  const orphans = releases
    .filter((name) => !keep.includes(name) && name !== ignoreRelease)
    .sort()
    .reverse();
  const purged: string[] = [];
  const failed: HelmError[] = [];
  for (const release of orphans) {
    try {
      await helm.uninstall(release, namespace);
      purged.push(release);
    } catch (error: unknown) {
      if (!(error instanceof HelmError)) throw error;
      failed.push(error);
    }
  }
  return { purged, failed };
}
