import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { isJsonObject, type JsonObject } from '../../core/json.ts';
import { parseValuesPatch, type ValuesPatch } from '../../core/values-patch.ts';
import { makeTempDir } from '../../processes/temp-dir.ts';
import type { ReleaseDetails } from './helm-client.ts';
import {
  isStuckState,
  recoverStuckRelease,
  type ReleaseHelm,
  type ReleaseRecovery,
} from './recover-release.ts';
import { RELEASE_CHART_FORMAT, releaseChartTexts, writeReleaseChart } from './release-chart.ts';

/**
 * The release values key that holds the checksum, as addon-operator kept `_addonOperatorModuleChecksum` in
 * release values (docs/lifecycle.md "Helm delivery"). The release chart reads no values, so the key is
 * kaddon's.
 */
export const CHECKSUM_VALUES_KEY = '_kaddonModuleChecksum';

/**
 * The release values key that records the values patches in force at the delivery, by owner values
 * key (`global`, the module's): what `kaddon diff` replays instead of running hooks (docs/drift.md
 * "What diff compares"). Like the checksum, nothing in the release chart reads it.
 */
const VALUES_PATCHES_KEY = '_kaddonValuesPatches';

/** Values patches by owner values key. */
export type OwnerPatches = ReadonlyMap<string, ValuesPatch>;

export interface DeliverModuleInput {
  /** The module name: the release name and the chart name. */
  readonly module: string;
  /** ADDON_OPERATOR_NAMESPACE: where the release is stored. */
  readonly namespace: string;
  /** The module's slice as YAML text, as `kaddon build --module` prints it. */
  readonly manifest: string;
  /** Anything else that decides what helm would do, e.g. the helm-relevant values' checksum. */
  readonly checksumInputs?: readonly string[];
  /**
   * The hooks' values patches the manifest was rendered with (global and the module's), recorded
   * in the release's values. Not part of the checksum: a patch that changes no object writes no
   * revision.
   */
  readonly valuesPatches?: OwnerPatches;
  /**
   * The resource monitor found objects of the release missing (auto-heal, docs/lifecycle.md "Helm delivery").
   */
  readonly resourcesMissing?: boolean;
  /**
   * `helm list` just showed no release of this name: install without asking helm first. Should a
   * release have appeared meanwhile, `upgrade --install` upgrades it (one left stuck fails, and the
   * caller's retry asks helm); the release engine, which then reads no history either, has its
   * first revision's create refused and the retry reads it (docs/delivery.md "Reading releases").
   */
  readonly knownAbsent?: boolean;
  /**
   * Whether an object is now held by another module's release: one the module's last revision held
   * is handed over, never deleted (docs/delivery.md "Objects moving between modules").
   */
  readonly handedOver?: (object: JsonObject) => boolean;
  /** Take back fields changed by hand (helm's --force-conflicts): the end of maintenance. */
  readonly forceConflicts?: boolean;
}

export interface DeliverDeps {
  readonly helm: ReleaseHelm;
  /** HELM_TIMEOUT in seconds. */
  readonly timeoutSeconds: number;
  readonly tmpRoot?: string;
}

/** Why helm upgrade ran. */
type UpgradeReason =
  'absent' | 'checksum-changed' | 'not-deployed' | 'resources-missing' | 'foreign-revision';

export type DeliverResult =
  | {
      readonly outcome: 'unchanged';
      readonly revision: number;
      readonly checksum: string;
      /** A stuck release rolled back to a revision that already held this content. */
      readonly recovery?: ReleaseRecovery;
    }
  | {
      readonly outcome: 'installed' | 'upgraded' | 'recovered';
      readonly reason: UpgradeReason;
      readonly revision: number;
      readonly checksum: string;
      /** Set when outcome is 'recovered': what cleared the stuck release before the upgrade. */
      readonly recovery?: ReleaseRecovery;
      /** The revision upgraded from when kaddon did not write it, and why it is not kaddon's. */
      readonly foreign?: { readonly revision: number; readonly why: string };
    };

/** sha256 over everything that decides the release's content (docs/lifecycle.md "Helm delivery"). */
export function releaseChecksum(manifest: string, inputs: readonly string[] = []): string {
  return createHash('sha256')
    .update(JSON.stringify([RELEASE_CHART_FORMAT, manifest, ...inputs]))
    .digest('hex');
}

/**
 * Delivers a module's slice as its release: recovers a release left stuck by a crash, then runs
 * `helm upgrade --install` only when the release is absent or not deployed, its checksum differs,
 * or resources are missing; otherwise helm writes nothing and `helm history` stays as it was.
 */
export async function deliverModule(input: DeliverModuleInput, deps: DeliverDeps): Promise<DeliverResult> {
  const { module, namespace } = input;
  const checksum = releaseChecksum(input.manifest, input.checksumInputs);
  // One helm call answers state, revision and stored checksum; an unchanged release costs no more.
  let current = input.knownAbsent === true ? undefined : await deps.helm.release(module, namespace);
  let recovery: ReleaseRecovery | undefined;
  if (current && isStuckState(current.status)) {
    recovery = await recoverStuckRelease(deps.helm, module, namespace, deps.timeoutSeconds);
    current = await deps.helm.release(module, namespace);
  }
  const reason = upgradeReason(current, checksum, input);
  if (reason === undefined && current)
    return { outcome: 'unchanged', revision: current.revision, checksum, ...(recovery ? { recovery } : {}) };
  const revision = await upgradeRelease(input, checksum, deps);
  const outcome = recovery ? 'recovered' : current ? 'upgraded' : 'installed';
  const foreign =
    current?.foreign === undefined ? {} : { foreign: { revision: current.revision, why: current.foreign } };
  return {
    outcome,
    reason: reason ?? 'absent',
    revision,
    checksum,
    ...(recovery ? { recovery } : {}),
    ...foreign,
  };
}

/**
 * addon-operator's shouldRunHelmUpgrade (docs/lifecycle.md "Helm delivery"), with a missing checksum
 * as changed.
 */
function upgradeReason(
  current: ReleaseDetails | undefined,
  checksum: string,
  input: DeliverModuleInput,
): UpgradeReason | undefined {
  if (!current) return 'absent';
  if (current.status !== 'deployed') return 'not-deployed';
  if (current.foreign !== undefined) return 'foreign-revision';
  if (input.resourcesMissing === true) return 'resources-missing';
  return current.values[CHECKSUM_VALUES_KEY] === checksum ? undefined : 'checksum-changed';
}

/** `helm upgrade --install` of the release chart; the revision it wrote. */
async function upgradeRelease(
  input: DeliverModuleInput,
  checksum: string,
  deps: DeliverDeps,
): Promise<number> {
  const options = {
    values: { [CHECKSUM_VALUES_KEY]: checksum, ...patchesRecord(input.valuesPatches) },
    timeoutSeconds: deps.timeoutSeconds,
    ...(input.handedOver ? { handedOver: input.handedOver } : {}),
    ...(input.forceConflicts === true ? { forceConflicts: true } : {}),
    ...(input.knownAbsent === true ? { knownAbsent: true } : {}),
  };
  const texts = releaseChartTexts(input.module, input.manifest);
  const withDir = async <T>(use: (dir: string) => Promise<T>): Promise<T> => {
    const dir = await makeTempDir(path.join(deps.tmpRoot ?? os.tmpdir(), `kaddon-release-${input.module}-`));
    try {
      await writeReleaseChart(dir.path, input.module, input.manifest);
      return await use(dir.path);
    } finally {
      await dir.remove();
    }
  };
  // The release engine reads the chart from memory; the helm binary needs it on disk.
  if (deps.helm.upgradeInstallChart)
    return deps.helm.upgradeInstallChart(input.module, input.namespace, { texts, withDir }, options);
  return withDir((dir) => deps.helm.upgradeInstall(input.module, input.namespace, dir, options));
}

function patchesRecord(patches: OwnerPatches | undefined): JsonObject {
  const record: JsonObject = {};
  for (const [key, patch] of patches ?? [])
    if (patch.length > 0) record[key] = patch.map((operation) => ({ ...operation }));
  return Object.keys(record).length > 0 ? { [VALUES_PATCHES_KEY]: record } : {};
}

/**
 * The values patches a release recorded (VALUES_PATCHES_KEY) from its values; empty for a release
 * without them (no hook returned a values patch, or delivered by an older kaddon).
 */
export function recordedPatches(values: JsonObject): OwnerPatches {
  const record = values[VALUES_PATCHES_KEY];
  const out = new Map<string, ValuesPatch>();
  if (!isJsonObject(record)) return out;
  for (const [key, operations] of Object.entries(record))
    out.set(key, parseValuesPatch(JSON.stringify(operations), { kind: 'values' }));
  return out;
}
