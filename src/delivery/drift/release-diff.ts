import { forEachLimited } from '../../core/for-each-limited.ts';
import type { JsonObject } from '../../core/json.ts';
import type { ModuleAction, ModuleDiff, ObjectChange } from '../../core/module-diff.ts';
import { compareApplied } from '../../core/object-drift.ts';
import { idKey, idOf } from '../../core/res-id.ts';
import {
  getLive,
  objectTarget,
  releaseObject,
  serverApply,
  targetKey,
  type ApplyApi,
  type ObjectTarget,
} from './release-objects.ts';

export interface ReleaseDiffInput {
  readonly module: string;
  /** ADDON_OPERATOR_NAMESPACE: the release's namespace and the default of its objects. */
  readonly namespace: string;
  /** What the module renders now; empty when it is disabled or gone. */
  readonly objects: readonly JsonObject[];
  /** The objects of its current release; undefined when there is none. */
  readonly released: readonly JsonObject[] | undefined;
  /**
   * What of an object the comparison leaves out: the module's `drift.ignore` rules and the
   * `kaddon.dev/drift: ignore` annotation, as drift detection reads them (docs/drift.md
   * "Ignoring fields"). Nothing when not given.
   */
  readonly ignore?: (
    desired: JsonObject,
    live: JsonObject | undefined,
  ) => { readonly skip: boolean; readonly paths: readonly string[] };
}

/** How many objects are compared at once. */
const CONCURRENCY = 8;

/**
 * What `helm upgrade --install` (or `helm uninstall`) of the module's release would change now
 * (docs/drift.md "kaddon diff"): every rendered object through a server-side apply dry run, every
 * released object no longer rendered as deleted. Nothing is written.
 */
export async function diffRelease(api: ApplyApi, input: ReleaseDiffInput): Promise<ModuleDiff> {
  const changes: ObjectChange[] = [];
  const rendered = new Set<string>();
  await forEachLimited(input.objects, CONCURRENCY, async (object) => {
    const desired = releaseObject(object, input.module, input.namespace);
    const target = await objectTarget(api, desired, input.namespace);
    rendered.add(target ? targetKey(target) : idKey(idOf(desired)));
    const change = await diffObject(api, target, desired, input.ignore);
    if (change) changes.push(change);
  });
  await forEachLimited(input.released ?? [], CONCURRENCY, async (object) => {
    const target = await objectTarget(api, object, input.namespace);
    if (target === undefined || rendered.has(targetKey(target))) return;
    const live = await getLive(api, target);
    if (live === undefined) return;
    changes.push({ ...identity(target, live), action: 'delete', before: compareApplied(live, live).after });
  });
  changes.sort(byId);
  return { module: input.module, action: moduleAction(input, changes), changes };
}

async function diffObject(
  api: ApplyApi,
  target: ObjectTarget | undefined,
  desired: JsonObject,
  ignore: ReleaseDiffInput['ignore'],
): Promise<ObjectChange | undefined> {
  if (target === undefined) {
    // The kind is not served yet (its CRD comes with this delivery): it can only be created.
    const id = idOf(desired);
    return {
      action: 'create',
      apiVersion: typeof desired.apiVersion === 'string' ? desired.apiVersion : '',
      kind: id.kind,
      namespace: id.namespace,
      name: id.name,
      after: desired,
    };
  }
  const live = await getLive(api, target);
  const ignored = ignore?.(desired, live);
  if (ignored?.skip === true && live !== undefined) return undefined;
  const applied = await serverApply(api, target, desired, { dryRun: true });
  const comparison = compareApplied(live, applied, { ignorePaths: [...(ignored?.paths ?? [])] });
  if (!comparison.changed) return undefined;
  return {
    ...identity(target, applied),
    action: live === undefined ? 'create' : 'update',
    ...(comparison.before ? { before: comparison.before } : {}),
    after: comparison.after,
  };
}

function moduleAction(input: ReleaseDiffInput, changes: readonly ObjectChange[]): ModuleAction {
  if (input.released === undefined) return input.objects.length > 0 ? 'install' : 'unchanged';
  if (input.objects.length === 0) return 'uninstall';
  return changes.length > 0 ? 'upgrade' : 'unchanged';
}

function identity(target: ObjectTarget, object: JsonObject): Omit<ObjectChange, 'action'> {
  return {
    apiVersion: typeof object.apiVersion === 'string' ? object.apiVersion : '',
    kind: target.id.kind,
    namespace: target.namespace,
    name: target.id.name,
  };
}

function byId(a: ObjectChange, b: ObjectChange): number {
  const left = `${a.namespace}/${a.kind}/${a.name}`;
  const right = `${b.namespace}/${b.kind}/${b.name}`;
  return left < right ? -1 : left > right ? 1 : 0;
}
