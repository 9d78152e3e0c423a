import { deepClone, isJsonObject, type JsonObject } from '../../core/json.ts';
import { HELM_FIELD_MANAGER } from '../../core/object-drift.ts';
import { apiVersionOf, idOf, type ResId } from '../../core/res-id.ts';
import { KubeApiError, resourcePath, type ApiResource, type KubeClient } from '../kube-client.ts';

export type ApplyApi = Pick<KubeClient, 'request' | 'resolveResource'>;

/** Where one object of a release lives: its API resource, namespace and URL. */
export interface ObjectTarget {
  readonly id: ResId;
  readonly resource: ApiResource;
  readonly namespace: string;
  readonly path: string;
  /** `Deployment demo/web`, as messages name it. */
  readonly label: string;
}

/**
 * The object as helm sends it for the module's release (docs/drift.md): the rendered object with the
 * label and annotations helm adds, so that a comparison or correction owns exactly what helm owns.
 */
export function releaseObject(object: JsonObject, release: string, releaseNamespace: string): JsonObject {
  const out = deepClone(object);
  const metadata = isJsonObject(out.metadata) ? out.metadata : (out.metadata = {});
  metadata.labels = { ...(isJsonObject(metadata.labels) ? metadata.labels : {}) };
  metadata.labels['app.kubernetes.io/managed-by'] = 'Helm';
  metadata.annotations = { ...(isJsonObject(metadata.annotations) ? metadata.annotations : {}) };
  metadata.annotations['meta.helm.sh/release-name'] = release;
  metadata.annotations['meta.helm.sh/release-namespace'] = releaseNamespace;
  return out;
}

/** The object's API resource and URL; undefined when the server does not serve its kind (yet). */
export async function objectTarget(
  api: ApplyApi,
  object: JsonObject,
  defaultNamespace: string,
): Promise<ObjectTarget | undefined> {
  const id = idOf(object);
  let resource: ApiResource;
  try {
    resource = await api.resolveResource(apiVersionOf(id), id.kind);
  } catch (error: unknown) {
    if (error instanceof KubeApiError && error.status === 404) return undefined;
    throw error;
  }
  const namespace = resource.namespaced ? id.namespace || defaultNamespace : '';
  return {
    id,
    resource,
    namespace,
    path: resourcePath(resource, namespace, id.name),
    label: `${id.kind} ${namespace ? `${namespace}/` : ''}${id.name}`,
  };
}

/** The live object; undefined when it does not exist. */
export async function getLive(api: ApplyApi, target: ObjectTarget): Promise<JsonObject | undefined> {
  try {
    return await api.request('GET', target.path);
  } catch (error: unknown) {
    if (error instanceof KubeApiError && error.status === 404) return undefined;
    throw error;
  }
}

/**
 * A server-side apply of the object as helm's field manager, forced over other managers' changes
 * (docs/drift.md): with `dryRun` nothing is written and the answer is the object as it would be,
 * after defaulting and admission.
 */
export async function serverApply(
  api: ApplyApi,
  target: ObjectTarget,
  object: JsonObject,
  options: { dryRun: boolean },
): Promise<JsonObject> {
  const body = deepClone(object);
  if (target.namespace && isJsonObject(body.metadata)) body.metadata.namespace = target.namespace;
  return api.request('PATCH', target.path, {
    query: {
      fieldManager: HELM_FIELD_MANAGER,
      force: true,
      ...(options.dryRun ? { dryRun: 'All' } : {}),
    },
    body,
    contentType: 'application/apply-patch+yaml',
  });
}

/** One key per object across kinds and namespaces. */
export function targetKey(target: ObjectTarget): string {
  return `${target.resource.group}/${target.resource.name}/${target.namespace}/${target.id.name}`;
}
