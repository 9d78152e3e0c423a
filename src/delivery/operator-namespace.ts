import { KaddonError } from '../core/errors.ts';
import { isJsonObject, type JsonObject } from '../core/json.ts';
import { KubeApiError, type KubeClient } from './kube-client.ts';

/** The operator's namespace cannot be told from the cluster: --namespace must say it. */
class OperatorNamespaceError extends KaddonError {
  readonly code = 'operator-namespace-unknown';
  constructor(problem: string, options?: { cause?: unknown }) {
    super(
      `operator namespace: ${problem}.`,
      'Name the namespace kaddon runs in with --namespace or ADDON_OPERATOR_NAMESPACE (deploy/ installs into kaddon).',
      options,
    );
  }
}

/**
 * The namespace of the operator's ConfigMap, when exactly one namespace holds a ConfigMap of that
 * name: where the operator keeps its config and its releases (docs/drift.md "kaddon diff").
 */
export async function findOperatorNamespace(
  api: Pick<KubeClient, 'request'>,
  configMap: string,
  note: (text: string) => void,
): Promise<string> {
  let list: JsonObject;
  try {
    list = await api.request('GET', '/api/v1/configmaps', {
      query: { fieldSelector: `metadata.name=${configMap}` },
    });
  } catch (error: unknown) {
    if (error instanceof KubeApiError && error.status === 403)
      throw new OperatorNamespaceError(
        `listing ConfigMaps in every namespace, to find the operator's ConfigMap '${configMap}', is forbidden`,
        { cause: error },
      );
    throw error;
  }
  const namespaces = (Array.isArray(list.items) ? list.items : []).flatMap((item) => {
    const metadata = isJsonObject(item) && isJsonObject(item.metadata) ? item.metadata : {};
    return typeof metadata.namespace === 'string' ? [metadata.namespace] : [];
  });
  const [only] = namespaces;
  if (only === undefined || namespaces.length > 1)
    throw new OperatorNamespaceError(
      namespaces.length === 0
        ? `no namespace holds the operator's ConfigMap '${configMap}'`
        : `the namespaces ${namespaces.join(', ')} each hold a ConfigMap '${configMap}'`,
    );
  note(`namespace '${only}', which holds the operator's ConfigMap '${configMap}'`);
  return only;
}
