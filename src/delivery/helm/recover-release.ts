import type { JsonObject } from '../../core/json.ts';
import type { HelmClient, ReleaseState, UpgradeInstallOptions } from './helm-client.ts';
import type { InMemoryReleaseChart } from './release-chart.ts';

export type ReleaseHelm = Pick<
  HelmClient,
  'upgradeInstall' | 'status' | 'release' | 'history' | 'list' | 'rollback'
> & {
  /**
   * `helm uninstall`; `handedOver` names objects another release now holds, which the release
   * engine leaves (docs/delivery.md "Objects moving between modules"); the helm client alone
   * cannot.
   */
  uninstall(
    release: string,
    namespace: string,
    timeoutSeconds?: number,
    handedOver?: (object: JsonObject) => boolean,
  ): Promise<void>;
  /** `upgradeInstall` of a chart held in memory, where the client can take one (the release engine). */
  upgradeInstallChart?(
    release: string,
    namespace: string,
    chart: InMemoryReleaseChart,
    options: UpgradeInstallOptions,
  ): Promise<number>;
};

/** What was done to a release that an interrupted helm left behind. */
export type ReleaseRecovery =
  | { readonly action: 'rollback'; readonly from: ReleaseState; readonly toRevision: number }
  | { readonly action: 'uninstall'; readonly from: ReleaseState };

/** States helm writes before an operation and replaces after it: left over, they block every upgrade. */
export function isStuckState(status: ReleaseState): boolean {
  return status.startsWith('pending-') || status === 'uninstalling';
}

/**
 * Clears a release that a crashed helm left in pending-install, pending-upgrade or pending-rollback, which
 * helm otherwise refuses with "another operation is in progress". addon-operator (docs/lifecycle.md "Helm
 * delivery") deletes the pending revision's storage Secret for the secret driver and rolls back for the
 * others; kaddon always takes the rollback path, which works for every HELM_DRIVER through helm itself: roll
 * back to the newest older revision that is not pending, or uninstall when there is none (a first install
 * that never finished). A release stuck in `uninstalling` is uninstalled again (addon-operator issue #496).
 */
export async function recoverStuckRelease(
  helm: ReleaseHelm,
  release: string,
  namespace: string,
  timeoutSeconds: number,
): Promise<ReleaseRecovery | undefined> {
  const history = (await helm.history(release, namespace)).sort((a, b) => b.revision - a.revision);
  const newest = history[0];
  if (!newest || !isStuckState(newest.status)) return undefined;
  const target = history.find((entry) => entry.revision < newest.revision && !isStuckState(entry.status));
  if (newest.status === 'uninstalling' || !target) {
    await helm.uninstall(release, namespace, timeoutSeconds);
    return { action: 'uninstall', from: newest.status };
  }
  await helm.rollback(release, namespace, target.revision, timeoutSeconds);
  return { action: 'rollback', from: newest.status, toRevision: target.revision };
}
