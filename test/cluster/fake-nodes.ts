import { requestApi, type ApiCredentials } from './api-request.ts';
import { ClusterError } from './cluster-error.ts';

/** The annotation KWOK is told to manage Nodes by (kwok-controller.ts). */
export const fakeNodeAnnotation = { key: 'kwok.x-k8s.io/node', value: 'fake' } as const;

/** Two, so a DaemonSet has more than one Pod and anti-affinity has somewhere to go. */
export const fakeNodeNames: readonly string[] = ['kwok-node-0', 'kwok-node-1'];

/** Room for any test's workloads: requests never make a Pod unschedulable by accident. */
const capacity = { cpu: '32', memory: '128Gi', pods: '110' };

/**
 * With `kubeletPort`, each Node's status names 127.0.0.1 and that port as its kubelet, which KWOK
 * then serves (kwok-controller.ts): the apiserver sends a Pod's port-forward there.
 */
export async function createFakeNodes(credentials: ApiCredentials, kubeletPort?: number): Promise<void> {
  for (const name of fakeNodeNames) {
    const response = await requestApi(credentials, 'POST', '/api/v1/nodes', fakeNode(name, kubeletPort));
    if (response.status !== 201) {
      throw new ClusterError(
        'command-failed',
        `test cluster 'node ${name}'`,
        `creating it answered ${response.status}`,
        'Read the kube-apiserver log in the cluster directory.',
        { output: response.body },
      );
    }
  }
}

/** Ready, and no longer tainted not-ready by the node lifecycle controller: Pods can land there. */
export async function areFakeNodesReady(credentials: ApiCredentials): Promise<boolean> {
  const states = await Promise.all(fakeNodeNames.map((name) => isNodeSchedulable(credentials, name)));
  return states.every(Boolean);
}

interface NodeState {
  readonly spec?: { readonly taints?: readonly unknown[] };
  readonly status?: { readonly conditions?: readonly { type: string; status: string }[] };
}

async function isNodeSchedulable(credentials: ApiCredentials, name: string): Promise<boolean> {
  const response = await requestApi(credentials, 'GET', `/api/v1/nodes/${name}`, undefined, 2000);
  if (response.status !== 200) return false;
  const node = JSON.parse(response.body) as NodeState;
  const ready = node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
  return ready && (node.spec?.taints ?? []).length === 0;
}

function fakeNode(name: string, kubeletPort: number | undefined): object {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      annotations: { [fakeNodeAnnotation.key]: fakeNodeAnnotation.value },
      labels: {
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        type: 'kwok',
      },
    },
    // The apiserver keeps a new Node's status: KWOK's node-ready Stage adds the conditions.
    status: { allocatable: capacity, capacity, ...kubeletStatus(kubeletPort) },
  };
}

/** Where the apiserver dials a Node's kubelet: its InternalIP and its kubelet endpoint's port. */
function kubeletStatus(kubeletPort: number | undefined): object {
  if (kubeletPort === undefined) return {};
  return {
    addresses: [{ type: 'InternalIP', address: '127.0.0.1' }],
    daemonEndpoints: { kubeletEndpoint: { Port: kubeletPort } },
  };
}
