import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  casesDir,
  expectedObjects,
  readKustomization,
  readResources,
} from '../../../test/conformance-case.ts';
import { KustomizeError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/json.ts';
import type { FieldSpec } from '../../core/kustomization.ts';
import { Resource } from '../../core/resource.ts';
import { transformReplicas } from './replicas.ts';

/** The replicas table in kustomize's order, which its error message lists. */
const REPLICA_SPECS: FieldSpec[] = ['Deployment', 'StatefulSet', 'ReplicaSet', 'ReplicationController'].map(
  (kind) => ({
    kind,
    path: 'spec/replicas',
    create: true,
  }),
);

describe('transformReplicas on ct-01-basic-component', () => {
  const dir = path.join(casesDir, 'ct-01-basic-component/input');
  const resources = [
    ...readResources(path.join(dir, 'base/deploy.yaml')),
    ...readResources(path.join(dir, 'prod/db')),
    ...readResources(path.join(dir, 'comp/stub.yaml')),
  ];
  // The component's namePrefix ran before its replicas, as in kustomize's transformer order.
  for (const resource of resources) resource.setName(`comp-${resource.name}`);
  const replicas = readKustomization(path.join(dir, 'comp/kustomization.yaml')).replicas ?? [];
  transformReplicas(resources, replicas, REPLICA_SPECS, 'comp/kustomization.yaml');
  const expected = expectedObjects('ct-01-basic-component');

  for (const resource of resources) {
    it(`leaves ${resource.name} as kustomize did (v1 Deployment, matched by its name before the prefix)`, () => {
      const want = expected.find(
        (obj) =>
          obj.kind === 'Deployment' && JSON.stringify(obj.metadata) === JSON.stringify(resource.obj.metadata),
      );
      assert.deepEqual(resource.obj, want);
    });
  }
});

describe('transformReplicas', () => {
  it('sets component a of comp-03a-order-ab (before component b patches replicas to 5)', () => {
    const dir = path.join(casesDir, 'comp-03a-order-ab/input');
    const resources = readResources(path.join(dir, 'base/deploy.yaml'));
    const replicas = readKustomization(path.join(dir, 'a/kustomization.yaml')).replicas ?? [];
    transformReplicas(resources, replicas, REPLICA_SPECS, 'a/kustomization.yaml');
    assert.equal((resources[0]?.obj.spec as JsonObject).replicas, 2);
  });

  it('creates spec.replicas and leaves other kinds of the same name alone', () => {
    const deployment = new Resource(
      { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db' } },
      't',
    );
    const service = new Resource(
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'db' }, spec: {} },
      't',
    );
    transformReplicas([deployment, service], [{ name: 'db', count: 0 }], REPLICA_SPECS, 'k.yaml');
    assert.deepEqual(deployment.obj.spec, { replicas: 0 });
    assert.deepEqual(service.obj.spec, {});
  });

  it('reports replicas-err-01-no-match in its own words with the kustomization file', () => {
    const dir = path.join(casesDir, 'replicas-err-01-no-match');
    const spec = JSON.parse(readFileSync(path.join(dir, 'case.json'), 'utf8')) as { error_contains: string };
    const expectedError = readFileSync(path.join(dir, 'expected-error.txt'), 'utf8').trim();
    const resources = readResources(path.join(dir, 'input/deploy.yaml'));
    const replicas = readKustomization(path.join(dir, 'input/kustomization.yaml')).replicas ?? [];
    assert.throws(
      () => {
        transformReplicas(resources, replicas, REPLICA_SPECS, 'input/kustomization.yaml');
      },
      (error: unknown) =>
        error instanceof KustomizeError &&
        error.code === 'transformer-invalid' &&
        error.file === 'input/kustomization.yaml' &&
        error.message.startsWith("kustomization 'input/kustomization.yaml': ") &&
        error.message.includes(spec.error_contains) &&
        error.message.includes(expectedError) &&
        error.hint.includes('namePrefix'),
    );
  });
});
