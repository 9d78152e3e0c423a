import { errorMessage, KaddonError } from '../../core/errors.ts';
import { isJsonObject, type JsonObject } from '../../core/json.ts';
import { HELM_FIELD_MANAGER } from '../../core/object-drift.ts';
import { apiVersionOf, idOf } from '../../core/res-id.ts';
import {
  getLive,
  objectTarget,
  releaseObject,
  targetKey,
  type ApplyApi,
  type ObjectTarget,
} from '../drift/release-objects.ts';
import { KubeApiError } from '../kube-client.ts';
import { upgradedManagedFields } from './client-side-ownership.ts';
import { isKept } from './release-manifest.ts';

/** A native delivery that could not be done; the release records it as failed, as helm does. */
export class NativeDeliveryError extends KaddonError {
  readonly code = 'native-delivery-failed';
  readonly release: string;
  /** What went wrong, without the release's name and the hint. */
  readonly problem: string;
  constructor(release: string, problem: string, options?: { cause?: unknown }) {
    super(
      `release '${release}': ${problem}.`,
      'Check the rendered manifest (kaddon build --module) and the release (helm history); kaddon retries with backoff.',
      options,
    );
    this.release = release;
    this.problem = problem;
  }
}

/** An object as the release sends it, with where it goes. */
export interface ReleaseTarget {
  readonly target: ObjectTarget;
  readonly body: JsonObject;
}

/**
 * Every object's API resource, found before anything is written (helm builds the whole resource
 * list first): a kind the server does not serve fails the release with nothing changed.
 */
export async function releaseTargets(
  api: ApplyApi,
  objects: readonly JsonObject[],
  release: string,
  namespace: string,
): Promise<ReleaseTarget[]> {
  const targets: ReleaseTarget[] = [];
  for (const object of objects) {
    const body = releaseObject(object, release, namespace);
    const target = await objectTarget(api, body, namespace);
    if (target === undefined) {
      const id = idOf(object);
      throw new NativeDeliveryError(
        release,
        `resource mapping not found for ${id.kind} '${id.name}': no kind '${id.kind}' in '${apiVersionOf(id)}'; ensure CRDs are installed first`,
      );
    }
    if (target.namespace && isJsonObject(body.metadata)) body.metadata.namespace = target.namespace;
    targets.push({ target, body });
  }
  return targets;
}

/**
 * Server-side apply of each object in order as field manager `helm`, as helm 4 applies: no forcing
 * over other managers' fields (a conflict fails the release) unless `force` (helm's
 * --force-conflicts), and strict field validation. A failed
 * object does not stop the others where helm's would not (docs/delivery.md "What the native engine
 * does"): an install (`upgrade` false) sends every object, and an upgrade goes on past an object it
 * updates, stopping at one it creates; the failures are then reported together. `stop` also ends
 * the request under way: a write the API server is slow to answer must not outlast SIGTERM's grace
 * and leave the revision pending (docs/lifecycle.md "Stopping").
 */
export async function applyTargets(
  api: ApplyApi,
  release: string,
  targets: readonly ReleaseTarget[],
  options: {
    readonly upgrade: boolean;
    readonly stop?: AbortSignal | undefined;
    /** helm's --force-conflicts: take the fields other managers changed (docs/operations.md). */
    readonly force?: boolean;
  },
): Promise<void> {
  const { stop } = options;
  const stopped = (): boolean => stop?.aborted === true;
  const failures: NativeDeliveryError[] = [];
  for (const { target, body } of targets) {
    if (stopped()) throw new NativeDeliveryError(release, 'stopped: kaddon is stopping');
    try {
      await api.request('PATCH', target.path, {
        query: { fieldManager: HELM_FIELD_MANAGER, force: options.force === true, fieldValidation: 'Strict' },
        body,
        contentType: 'application/apply-patch+yaml',
        ...(stop === undefined ? {} : { signal: stop }),
      });
    } catch (error: unknown) {
      const failure = new NativeDeliveryError(
        release,
        `applying ${target.label} failed: ${errorMessage(error)}`,
        { cause: error },
      );
      if (stopped()) throw failure;
      // helm's upgrade creates what does not exist yet and stops at the first it cannot create.
      if (options.upgrade && (await getLive(api, target)) === undefined) throw failure;
      failures.push(failure);
    }
  }
  const [first] = failures;
  if (failures.length === 1 && first) throw first;
  if (failures.length > 1)
    throw new NativeDeliveryError(
      release,
      failures.map((failure) => failure.problem).join(options.upgrade ? ' && ' : '; '),
      { cause: first?.cause },
    );
}

/** How often a managed-fields move is tried again when the object changed in between (409). */
const OWNERSHIP_ATTEMPTS = 5;

/**
 * Before the first server-side apply of a release last written by client-side apply (helm 3,
 * addon-operator's helm library): each existing object's client-side ownership by `helm` is moved
 * into its Apply entry (docs/delivery.md "Releases written by client-side apply"), with the
 * object's resourceVersion in the patch so that a concurrent write makes it fail and be tried
 * again. Nothing else of the object changes.
 */
export async function takeOverClientSideOwnership(
  api: ApplyApi,
  release: string,
  targets: readonly ReleaseTarget[],
  stop?: AbortSignal,
): Promise<void> {
  for (const { target } of targets) {
    for (let attempt = 1; ; attempt++) {
      if (stop?.aborted === true) throw new NativeDeliveryError(release, 'stopped: kaddon is stopping');
      const live = await getLive(api, target);
      const metadata = isJsonObject(live?.metadata) ? live.metadata : undefined;
      const managedFields = Array.isArray(metadata?.managedFields) ? metadata.managedFields : [];
      const upgraded = upgradedManagedFields(managedFields, HELM_FIELD_MANAGER);
      if (metadata === undefined || upgraded === undefined) break;
      try {
        await api.request('PATCH', target.path, {
          body: [
            { op: 'replace', path: '/metadata/managedFields', value: upgraded },
            { op: 'replace', path: '/metadata/resourceVersion', value: metadata.resourceVersion ?? '' },
          ],
          contentType: 'application/json-patch+json',
          ...(stop === undefined ? {} : { signal: stop }),
        });
        break;
      } catch (error: unknown) {
        if (error instanceof KubeApiError && error.status === 409 && attempt < OWNERSHIP_ATTEMPTS) continue;
        throw new NativeDeliveryError(
          release,
          `moving helm's client-side ownership of ${target.label} to server-side apply failed: ${errorMessage(error)}`,
          { cause: error },
        );
      }
    }
  }
}

/**
 * Deletes the objects in order (background propagation, as helm), leaving those annotated
 * `helm.sh/resource-policy: keep` (in the release or, as helm reads it, on the live object) and
 * those another release has taken over since (docs/delivery.md "Objects moving between modules");
 * an object already gone is fine.
 */
export async function deleteTargets(
  api: ApplyApi,
  release: string,
  targets: readonly ReleaseTarget[],
  releaseNamespace: string,
): Promise<void> {
  for (const { target, body } of targets) {
    if (isKept(body)) continue;
    const live = await getLive(api, target);
    if (live === undefined || isKept(live) || isOwnedByAnother(live, release, releaseNamespace)) continue;
    try {
      await api.request('DELETE', target.path, { query: { propagationPolicy: 'Background' } });
    } catch (error: unknown) {
      if (error instanceof KubeApiError && error.status === 404) continue;
      throw new NativeDeliveryError(release, `deleting ${target.label} failed: ${errorMessage(error)}`, {
        cause: error,
      });
    }
  }
}

/** Whether a live object's helm ownership annotations name another release than this one. */
function isOwnedByAnother(live: JsonObject, release: string, releaseNamespace: string): boolean {
  const metadata = isJsonObject(live.metadata) ? live.metadata : {};
  const annotations = isJsonObject(metadata.annotations) ? metadata.annotations : {};
  const name = annotations['meta.helm.sh/release-name'];
  const namespace = annotations['meta.helm.sh/release-namespace'];
  return (
    (typeof name === 'string' && name !== release) ||
    (typeof namespace === 'string' && namespace !== releaseNamespace)
  );
}

/** The objects of `before` that `after` no longer holds; kinds no longer served are left out. */
export async function removedTargets(
  api: ApplyApi,
  before: readonly JsonObject[],
  after: readonly ReleaseTarget[],
  release: string,
  namespace: string,
): Promise<ReleaseTarget[]> {
  const kept = new Set(after.map(({ target }) => targetKey(target)));
  const removed: ReleaseTarget[] = [];
  for (const object of before) {
    const target = await objectTarget(api, object, namespace);
    if (target !== undefined && !kept.has(targetKey(target)))
      removed.push({ target, body: releaseObject(object, release, namespace) });
  }
  return removed;
}
