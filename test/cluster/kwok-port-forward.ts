import { setTimeout as sleep } from 'node:timers/promises';
import { requestApi, type ApiCredentials } from './api-request.ts';
import { ClusterError } from './cluster-error.ts';

/**
 * KWOK's PortForward (kwok.x-k8s.io/v1alpha1): named after a Pod, it tells KWOK's kubelet server
 * where a port-forward to that Pod goes (test/cluster/README.md "Port-forward to a fake Pod").
 * Only the fields KWOK reads are described; the schema keeps whatever else it is given.
 */
const group = 'kwok.x-k8s.io';
const version = 'v1alpha1';
const plural = 'portforwards';
const crdName = `${plural}.${group}`;

const openObject = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

const portForwardCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: crdName },
  spec: {
    group,
    scope: 'Namespaced',
    names: { kind: 'PortForward', listKind: 'PortForwardList', plural, singular: 'portforward' },
    versions: [
      {
        name: version,
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: openObject, status: openObject } } },
      },
    ],
  },
};

/** Creates the CRD and returns once it is Established, so KWOK's watch of it starts without errors. */
export async function installPortForwardCrd(credentials: ApiCredentials, timeoutMs: number): Promise<void> {
  const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  const created = await requestApi(credentials, 'POST', crds, portForwardCrd);
  if (created.status !== 201)
    throw refused(`CustomResourceDefinition ${crdName}`, created.status, created.body);
  const deadline = Date.now() + timeoutMs;
  while (!(await isEstablished(credentials, `${crds}/${crdName}`))) {
    if (Date.now() > deadline) {
      throw new ClusterError(
        'readiness-timeout',
        `test cluster 'CustomResourceDefinition ${crdName}'`,
        `not Established after ${timeoutMs} ms`,
        'Read the kube-apiserver log in the cluster directory.',
      );
    }
    await sleep(100);
  }
}

async function isEstablished(credentials: ApiCredentials, crdPath: string): Promise<boolean> {
  const response = await requestApi(credentials, 'GET', crdPath, undefined, 2000);
  if (response.status !== 200) return false;
  const crd = JSON.parse(response.body) as { status?: { conditions?: { type: string; status: string }[] } };
  return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false;
}

/**
 * Makes port-forwards to `podPort` of Pod `namespace/pod` reach 127.0.0.1:`targetPort` on this
 * machine, through the apiserver's pods/portforward and KWOK's kubelet server. Needs a cluster
 * started with `withPortForward`. One PortForward per Pod: it is named after the Pod, so call this
 * once per Pod. KWOK learns of the object through a watch, moments after this returns.
 */
export async function forwardPodPort(
  api: ApiCredentials,
  namespace: string,
  pod: string,
  podPort: number,
  targetPort: number,
): Promise<void> {
  const portForward = {
    apiVersion: `${group}/${version}`,
    kind: 'PortForward',
    metadata: { name: pod, namespace },
    spec: { forwards: [{ ports: [podPort], target: { port: targetPort, address: '127.0.0.1' } }] },
  };
  const apiPath = `/apis/${group}/${version}/namespaces/${namespace}/${plural}`;
  const response = await requestApi(api, 'POST', apiPath, portForward);
  if (response.status !== 201)
    throw refused(`PortForward ${namespace}/${pod}`, response.status, response.body);
}

function refused(subject: string, status: number, body: string): ClusterError {
  return new ClusterError(
    'command-failed',
    `test cluster '${subject}'`,
    `creating it answered ${status}`,
    'Start the cluster with withControllers and withPortForward both true.',
    { output: body },
  );
}
