import { KaddonError } from '../core/errors.ts';
import { isJsonObject, type JsonObject } from '../core/json.ts';
import { KubeApiError, type KubeClient } from '../delivery/kube-client.ts';
import { LEASE_NAME } from './leader-election.ts';

/** The operator's listen port when its container names no port `http` (ADDON_OPERATOR_LISTEN_PORT's default). */
const OPERATOR_PORT = 9650;

/** No Pod of the operator to forward to. */
class OperatorPodError extends KaddonError {
  readonly code = 'operator-pod-unknown';
  constructor(problem: string, hint: string) {
    super(`operator Pod: ${problem}.`, hint);
  }
}

export interface OperatorPod {
  readonly name: string;
  /** The container port named `http` (the operator's listen port), else 9650. */
  readonly port: number;
}

/**
 * The Pod to forward to: `--pod`, else the Deployment's Pods that are Running and Ready, the
 * holder of the operator's leader Lease first (with KADDON_HA only the leader serves the page).
 */
export async function findOperatorPod(
  api: Pick<KubeClient, 'request'>,
  namespace: string,
  { pod: named, deployment }: { readonly pod?: string | undefined; readonly deployment: string },
): Promise<OperatorPod> {
  const ns = encodeURIComponent(namespace);
  if (named !== undefined) {
    const pod = await api
      .request('GET', `/api/v1/namespaces/${ns}/pods/${encodeURIComponent(named)}`)
      .catch((error: unknown) => {
        if (error instanceof KubeApiError && error.status === 404)
          throw new OperatorPodError(
            `no Pod '${named}' in namespace '${namespace}'`,
            'Check the name with `kubectl get pods`.',
          );
        throw error;
      });
    return { name: named, port: httpPort(pod) };
  }
  let selector: string;
  try {
    const found = await api.request(
      'GET',
      `/apis/apps/v1/namespaces/${ns}/deployments/${encodeURIComponent(deployment)}`,
    );
    selector = labelSelector(found);
  } catch (error: unknown) {
    if (error instanceof KubeApiError && error.status === 404)
      throw new OperatorPodError(
        `no Deployment '${deployment}' in namespace '${namespace}'`,
        "Name the operator's Deployment with --deployment, or its Pod with --pod.",
      );
    throw error;
  }
  const list = await api.request('GET', `/api/v1/namespaces/${ns}/pods`, {
    query: { labelSelector: selector },
  });
  const chosen = choosePod(Array.isArray(list.items) ? list.items : [], await leaseHolder(api, ns));
  if (chosen === undefined)
    throw new OperatorPodError(
      `no Pod of Deployment '${deployment}' in namespace '${namespace}' is Running and Ready`,
      `See why with \`kubectl -n ${namespace} get pods -l ${selector}\`, or name a Pod with --pod.`,
    );
  return { name: podName(chosen), port: httpPort(chosen) };
}

async function leaseHolder(api: Pick<KubeClient, 'request'>, ns: string): Promise<string | undefined> {
  try {
    const lease = await api.request(
      'GET',
      `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/${LEASE_NAME}`,
    );
    const holder = isJsonObject(lease.spec) ? lease.spec.holderIdentity : undefined;
    return typeof holder === 'string' ? holder : undefined;
  } catch (error: unknown) {
    // No Lease (one replica without KADDON_HA) or no right to read it: any Ready Pod serves the page.
    if (error instanceof KubeApiError && (error.status === 404 || error.status === 403)) return undefined;
    throw error;
  }
}

function labelSelector(deployment: JsonObject): string {
  const spec = isJsonObject(deployment.spec) ? deployment.spec : {};
  const selector = isJsonObject(spec.selector) ? spec.selector : {};
  const labels = isJsonObject(selector.matchLabels) ? selector.matchLabels : {};
  return Object.entries(labels)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(',');
}

/**
 * The Pod to forward to among a Deployment's: a Running and Ready one, the leader Lease's holder
 * when it is one of them (with KADDON_HA only the leader serves the page), else the first.
 */
export function choosePod(pods: readonly unknown[], leader: string | undefined): JsonObject | undefined {
  const ready = pods.filter(isJsonObject).filter(isRunningAndReady);
  return ready.find((pod) => podName(pod) === leader) ?? ready[0];
}

function podName(pod: JsonObject): string {
  const name = isJsonObject(pod.metadata) ? pod.metadata.name : undefined;
  return typeof name === 'string' ? name : '';
}

function isRunningAndReady(pod: JsonObject): boolean {
  const status = isJsonObject(pod.status) ? pod.status : {};
  const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isJsonObject) : [];
  return status.phase === 'Running' && conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

function httpPort(pod: JsonObject): number {
  const spec = isJsonObject(pod.spec) ? pod.spec : {};
  const containers = Array.isArray(spec.containers) ? spec.containers.filter(isJsonObject) : [];
  for (const container of containers) {
    const ports = Array.isArray(container.ports) ? container.ports.filter(isJsonObject) : [];
    const http = ports.find((port) => port.name === 'http');
    if (typeof http?.containerPort === 'number') return http.containerPort;
  }
  return OPERATOR_PORT;
}
