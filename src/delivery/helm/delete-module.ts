import type { JsonObject } from '../../core/json.ts';
import type { ReleaseHelm } from './recover-release.ts';

/**
 * ModuleDelete's helm step: `helm uninstall`; a module without a release is fine (docs/lifecycle.md "Helm
 * delivery").
 */
export async function deleteModule(
  module: string,
  namespace: string,
  helm: Pick<ReleaseHelm, 'uninstall'>,
  timeoutSeconds?: number,
  handedOver?: (object: JsonObject) => boolean,
): Promise<void> {
  await helm.uninstall(module, namespace, timeoutSeconds, handedOver);
}

/**
 * DiscoverHelmReleases (docs/lifecycle.md "Helm delivery"): the releases in the namespace that no module
 * owns, in reverse name order (the order ModulePurge uninstalls them), except the release named by
 * HELM_IGNORE_RELEASE (the operator's own, when helm deployed it into the same namespace).
 */
export function orphanReleases(
  releases: readonly string[],
  modules: ReadonlySet<string>,
  ignoreRelease: string | undefined,
): string[] {
  return releases
    .filter((name) => !modules.has(name) && name !== ignoreRelease)
    .sort()
    .reverse();
}
