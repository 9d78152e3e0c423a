import assert from 'node:assert/strict';
import { chmodSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { repoRoot } from '../repo-root.ts';
import { runCli } from '../run-cli.ts';
import { makeTempTree } from '../temp-tree.ts';

interface Rule {
  readonly apiGroups: string[];
  readonly resources: string[];
  readonly verbs: string[];
}
interface RbacObject {
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
  readonly rules?: Rule[];
  readonly subjects?: { kind: string; name: string; namespace: string }[];
}

function parse(stdout: string): RbacObject[] {
  return parseAllDocuments(stdout).map((document) => document.toJS() as RbacObject);
}

/** The verbs the role of `kind` (in `namespace`) grants on `group`/`resource`. */
function verbs(
  objects: readonly RbacObject[],
  kind: string,
  group: string,
  resource: string,
  namespace?: string,
): string[] {
  const role = objects.find((object) => object.kind === kind && object.metadata.namespace === namespace);
  return (role?.rules ?? [])
    .filter((rule) => rule.apiGroups.includes(group) && rule.resources.includes(resource))
    .flatMap((rule) => rule.verbs);
}

const tree = makeTempTree('rbac-command');
after(() => {
  tree.remove();
});

describe('kaddon rbac', () => {
  it('grants the example tree what it delivers, and the operator what it needs itself', async () => {
    const run = await runCli([
      'rbac',
      path.join(repoRoot, 'examples/platform/modules'),
      '--namespace',
      'ops',
      '--service-account',
      'operator',
    ]);
    assert.equal(run.code, 0, run.stderr);
    const objects = parse(run.stdout);
    // Namespaces the modules create (echo, monitoring, …) cannot hold a Role before the operator ran.
    assert.deepEqual(verbs(objects, 'ClusterRole', 'apps', 'deployments'), [
      'get',
      'list',
      'watch',
      'create',
      'update',
      'patch',
      'delete',
    ]);
    assert.ok(verbs(objects, 'ClusterRole', 'scheduling.k8s.io', 'priorityclasses').includes('create'));
    assert.ok(verbs(objects, 'ClusterRole', '', 'namespaces').includes('delete'));
    // prometheus delivers a ClusterRole and its binding: escalate and bind, only because of that.
    assert.deepEqual(verbs(objects, 'ClusterRole', 'rbac.authorization.k8s.io', 'clusterroles').slice(-2), [
      'escalate',
      'bind',
    ]);
    // Its own: the ConfigMap watched, Helm's release Secrets, the HA Lease, in its namespace.
    // (granted cluster-wide when the modules deliver the kind elsewhere too, as here)
    const anywhere = (resource: string): string[] => [
      ...verbs(objects, 'Role', '', resource, 'ops'),
      ...verbs(objects, 'ClusterRole', '', resource),
    ];
    assert.ok(anywhere('configmaps').includes('watch'));
    assert.ok(anywhere('secrets').includes('watch'));
    assert.deepEqual(verbs(objects, 'Role', 'coordination.k8s.io', 'leases', 'ops'), [
      'get',
      'create',
      'update',
    ]);
    // Module status: Module objects and their status, the CRD, Events in `default`.
    assert.deepEqual(verbs(objects, 'ClusterRole', 'kaddon.dev', 'modules'), [
      'get',
      'list',
      'watch',
      'create',
      'delete',
    ]);
    assert.deepEqual(verbs(objects, 'ClusterRole', 'kaddon.dev', 'modules/status'), ['patch']);
    assert.deepEqual(verbs(objects, 'Role', 'events.k8s.io', 'events', 'default'), ['create', 'patch']);
    // Events about its ConfigMap, in its own namespace.
    assert.deepEqual(verbs(objects, 'Role', 'events.k8s.io', 'events', 'ops'), ['create', 'patch']);
    assert.equal(verbs(objects, 'ClusterRole', '', 'nodes').length, 0, 'nothing the tree does not use');
    const binding = objects.find((object) => object.kind === 'ClusterRoleBinding');
    assert.deepEqual(binding?.subjects, [{ kind: 'ServiceAccount', name: 'operator', namespace: 'ops' }]);
  });

  it("reads hook bindings and the modules' CRDs, and keeps Roles in namespaces the tree does not create", async () => {
    const dir = tree.write('watching', {
      'values.yaml': 'appEnabled: true\n',
      '010-app/kustomization.yaml': 'resources:\n- app.yaml\n',
      '010-app/app.yaml': [
        'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: web\n',
        'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: one\n  namespace: web\n',
        'apiVersion: example.com/v1\nkind: Fleet\nmetadata:\n  name: all\n',
      ].join('---\n'),
      '010-app/crds/widgets.yaml': [
        crd('widgets', 'Widget', 'Namespaced'),
        crd('fleets', 'Fleet', 'Cluster'),
      ].join('---\n'),
      '010-app/hooks/watch.sh': `#!/usr/bin/env bash
if [ "$1" = "--config" ]; then
  echo '{"configVersion":"v1","kubernetes":[{"name":"pods","apiVersion":"v1","kind":"Pod","namespace":{"nameSelector":{"matchNames":["web","jobs"]}}},{"name":"nodes","kind":"Node"},{"name":"labelled","apiVersion":"v1","kind":"ConfigMap","namespace":{"labelSelector":{"matchLabels":{"team":"a"}}}}]}'
fi
`,
    });
    chmodSync(path.join(dir, '010-app/hooks/watch.sh'), 0o755);
    const run = await runCli(['rbac', dir, '--namespace', 'kaddon']);
    assert.equal(run.code, 0, run.stderr);
    const objects = parse(run.stdout);
    assert.deepEqual(verbs(objects, 'Role', 'apps', 'deployments', 'web'), [
      'get',
      'list',
      'watch',
      'create',
      'update',
      'patch',
      'delete',
    ]);
    assert.ok(verbs(objects, 'Role', 'example.com', 'widgets', 'web').includes('create'));
    assert.ok(verbs(objects, 'ClusterRole', 'example.com', 'fleets').includes('create'));
    assert.ok(
      verbs(objects, 'ClusterRole', 'apiextensions.k8s.io', 'customresourcedefinitions').includes('patch'),
    );
    assert.deepEqual(verbs(objects, 'Role', '', 'pods', 'web'), ['get', 'list', 'watch']);
    assert.deepEqual(verbs(objects, 'Role', '', 'pods', 'jobs'), ['get', 'list', 'watch']);
    assert.deepEqual(verbs(objects, 'ClusterRole', '', 'nodes'), ['get', 'list', 'watch']);
    assert.deepEqual(verbs(objects, 'ClusterRole', '', 'namespaces'), ['get', 'list', 'watch']);
    assert.deepEqual(verbs(objects, 'ClusterRole', '', 'configmaps'), ['get', 'list', 'watch']);
    assert.equal(
      verbs(objects, 'ClusterRole', 'rbac.authorization.k8s.io', 'clusterroles').length,
      0,
      'no escalate without RBAC objects',
    );
  });

  it('exits 1 naming the module file of a kind it cannot resolve, and how to resolve it', async () => {
    const dir = tree.write('unknown', {
      'values.yaml': 'gadgetsEnabled: true\n',
      '010-gadgets/kustomization.yaml': 'resources:\n- gadget.yaml\n',
      '010-gadgets/gadget.yaml': 'apiVersion: toys.example.com/v1\nkind: Gadget\nmetadata:\n  name: g\n',
    });
    const run = await runCli(['rbac', dir]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /module 'gadgets' .*gadget\.yaml.*kind 'Gadget' of 'toys\.example\.com\/v1'/u);
    assert.match(run.stderr, /--kube-config/u);
  });
});

function crd(plural: string, kind: string, scope: string): string {
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.example.com
spec:
  group: example.com
  names: {kind: ${kind}, plural: ${plural}, singular: ${kind.toLowerCase()}}
  scope: ${scope}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`;
}
