import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JsonObject } from './json.ts';
import { healthFields, objectHealth as wholeObjectHealth } from './object-health.ts';

/** objectHealth, checked to give the same for the fields a health watch keeps (healthFields). */
function objectHealth(object: JsonObject): ReturnType<typeof wholeObjectHealth> {
  const health = wholeObjectHealth(object);
  assert.deepEqual(wholeObjectHealth(healthFields(object)), health);
  return health;
}

/** Object states as the API server reports them (recorded from the test cluster with controllers). */
const deployment = (status: JsonObject, spec: JsonObject = { replicas: 2 }, generation = 1): JsonObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'demo', generation },
  spec,
  status,
});

const rolledOut: JsonObject = {
  observedGeneration: 1,
  replicas: 2,
  updatedReplicas: 2,
  readyReplicas: 2,
  availableReplicas: 2,
  conditions: [
    { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' },
    { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' },
  ],
};

describe('objectHealth (kstatus rules)', () => {
  it('a Deployment is Current once rolled out, InProgress while pods are missing, Failed past its deadline', () => {
    assert.deepEqual(objectHealth(deployment(rolledOut)), { status: 'Current', message: '' });
    const pending = {
      observedGeneration: 1,
      replicas: 2,
      updatedReplicas: 2,
      unavailableReplicas: 2,
      conditions: [
        { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable' },
        { type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated' },
      ],
    };
    assert.deepEqual(objectHealth(deployment(pending)), {
      status: 'InProgress',
      message: '0 of 2 updated replicas available',
    });
    const deadline = {
      ...pending,
      conditions: [
        {
          type: 'Progressing',
          status: 'False',
          reason: 'ProgressDeadlineExceeded',
          message: 'ReplicaSet "web-5d" has timed out progressing.',
        },
      ],
    };
    assert.deepEqual(objectHealth(deployment(deadline)), {
      status: 'Failed',
      message: 'ProgressDeadlineExceeded: ReplicaSet "web-5d" has timed out progressing.',
    });
  });

  it('a newer generation than the controller observed is InProgress, whatever the counts say', () => {
    assert.equal(objectHealth(deployment(rolledOut, { replicas: 2 }, 2)).status, 'InProgress');
  });

  it('deletion wins over everything', () => {
    const object = deployment(rolledOut);
    object.metadata = { name: 'web', deletionTimestamp: '2026-01-01T00:00:00Z' };
    assert.equal(objectHealth(object).status, 'Terminating');
  });

  it('a StatefulSet waits for its pods and its update revision; OnDelete is Current', () => {
    const set = (status: JsonObject, spec: JsonObject = { replicas: 3 }): JsonObject => ({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', generation: 1 },
      spec,
      status: { observedGeneration: 1, ...status },
    });
    const done = {
      replicas: 3,
      readyReplicas: 3,
      currentReplicas: 3,
      updatedReplicas: 3,
      currentRevision: 'a',
      updateRevision: 'a',
    };
    assert.equal(objectHealth(set(done)).status, 'Current');
    assert.deepEqual(objectHealth(set({ ...done, readyReplicas: 1 })), {
      status: 'InProgress',
      message: '1 of 3 replicas ready',
    });
    assert.equal(objectHealth(set({ ...done, updateRevision: 'b' })).status, 'InProgress');
    assert.equal(
      objectHealth(set({}, { replicas: 3, updateStrategy: { type: 'OnDelete' } })).status,
      'Current',
    );
  });

  it('a DaemonSet needs observedGeneration and every count at desiredNumberScheduled', () => {
    const set = (status: JsonObject): JsonObject => ({
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent', generation: 1 },
      status,
    });
    assert.equal(objectHealth(set({})).status, 'InProgress');
    const full = {
      observedGeneration: 1,
      desiredNumberScheduled: 2,
      currentNumberScheduled: 2,
      updatedNumberScheduled: 2,
      numberAvailable: 2,
      numberReady: 2,
    };
    assert.equal(objectHealth(set(full)).status, 'Current');
    assert.deepEqual(objectHealth(set({ ...full, numberReady: 1, numberAvailable: 1 })), {
      status: 'InProgress',
      message: '1 of 2 pods available',
    });
  });

  it('a Job is Current when complete or running, Failed when failed, InProgress before it starts', () => {
    const job = (status: JsonObject): JsonObject => ({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'j' },
      status,
    });
    assert.equal(objectHealth(job({})).status, 'InProgress');
    assert.equal(objectHealth(job({ startTime: '2026-01-01T00:00:00Z' })).status, 'Current');
    assert.equal(objectHealth(job({ conditions: [{ type: 'Complete', status: 'True' }] })).status, 'Current');
    assert.deepEqual(
      objectHealth(
        job({
          conditions: [
            {
              type: 'Failed',
              status: 'True',
              reason: 'BackoffLimitExceeded',
              message: 'Job has reached the specified backoff limit',
            },
          ],
        }),
      ),
      { status: 'Failed', message: 'BackoffLimitExceeded: Job has reached the specified backoff limit' },
    );
  });

  it('a PVC must be Bound; a LoadBalancer Service needs an address; a ClusterIP Service is Current', () => {
    const pvc = (phase: string): JsonObject => ({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data' },
      status: { phase },
    });
    assert.equal(objectHealth(pvc('Bound')).status, 'Current');
    assert.equal(objectHealth(pvc('Pending')).status, 'InProgress');
    const service = (type: string, status: JsonObject): JsonObject => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 's' },
      spec: { type, clusterIP: '10.0.0.5' },
      status,
    });
    assert.equal(objectHealth(service('ClusterIP', {})).status, 'Current');
    assert.deepEqual(objectHealth(service('LoadBalancer', { loadBalancer: {} })), {
      status: 'InProgress',
      message: 'no load balancer address yet',
    });
    assert.equal(
      objectHealth(service('LoadBalancer', { loadBalancer: { ingress: [{ ip: '192.0.2.1' }] } })).status,
      'Current',
    );
  });

  it('a CRD must be Established; an APIService Available; names not accepted is Failed', () => {
    const crd = (conditions: JsonObject[]): JsonObject => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      status: { conditions },
    });
    assert.equal(objectHealth(crd([{ type: 'Established', status: 'True' }])).status, 'Current');
    assert.equal(
      objectHealth(crd([{ type: 'Established', status: 'False', reason: 'Installing' }])).status,
      'InProgress',
    );
    assert.equal(
      objectHealth(crd([{ type: 'NamesAccepted', status: 'False', reason: 'MultipleNamesNotAllowed' }]))
        .status,
      'Failed',
    );
    const apiService: JsonObject = {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1beta1.metrics.k8s.io' },
      status: { conditions: [{ type: 'Available', status: 'False', reason: 'MissingEndpoints' }] },
    };
    assert.deepEqual(objectHealth(apiService), { status: 'InProgress', message: 'MissingEndpoints' });
  });

  it('a custom resource follows Reconciling, Stalled and Ready; one without status is Current', () => {
    const widget = (status?: JsonObject): JsonObject => ({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w', generation: 3 },
      ...(status ? { status } : {}),
    });
    assert.equal(objectHealth(widget()).status, 'Current');
    assert.equal(objectHealth(widget({ observedGeneration: 2 })).status, 'InProgress');
    assert.equal(
      objectHealth(widget({ observedGeneration: 3, conditions: [{ type: 'Reconciling', status: 'True' }] }))
        .status,
      'InProgress',
    );
    assert.equal(
      objectHealth(
        widget({
          observedGeneration: 3,
          conditions: [{ type: 'Stalled', status: 'True', reason: 'Broken' }],
        }),
      ).status,
      'Failed',
    );
    assert.deepEqual(
      objectHealth(
        widget({
          observedGeneration: 3,
          conditions: [{ type: 'Ready', status: 'False', reason: 'Waiting', message: 'for the database' }],
        }),
      ),
      {
        status: 'InProgress',
        message: 'Waiting: for the database',
      },
    );
    assert.equal(
      objectHealth(widget({ observedGeneration: 3, conditions: [{ type: 'Ready', status: 'True' }] })).status,
      'Current',
    );
  });

  it('a Pod in CrashLoopBackOff is Failed; an unschedulable one is InProgress', () => {
    const pod = (status: JsonObject): JsonObject => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      status,
    });
    assert.equal(
      objectHealth(
        pod({
          phase: 'Running',
          containerStatuses: [{ name: 'c', state: { waiting: { reason: 'CrashLoopBackOff' } } }],
        }),
      ).status,
      'Failed',
    );
    assert.equal(
      objectHealth(
        pod({
          phase: 'Pending',
          conditions: [
            {
              type: 'PodScheduled',
              status: 'False',
              reason: 'Unschedulable',
              message: '0/1 nodes are available',
            },
          ],
        }),
      ).message,
      'Unschedulable: 0/1 nodes are available',
    );
  });
});

describe('healthFields', () => {
  it('keeps what objectHealth reads and what names the object, not its pod template or managedFields', () => {
    const live: JsonObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'web',
        namespace: 'demo',
        uid: 'c0ffee',
        resourceVersion: '42',
        generation: 3,
        labels: { app: 'web' },
        managedFields: [{ manager: 'helm', operation: 'Apply', fieldsV1: { 'f:spec': {} } }],
      },
      spec: {
        replicas: 2,
        strategy: { type: 'RollingUpdate' },
        template: { spec: { containers: [{ name: 'app', image: 'web:1' }] } },
      },
      status: rolledOut,
    };
    assert.deepEqual(healthFields(live), {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'demo', resourceVersion: '42', generation: 3 },
      spec: { replicas: 2 },
      status: rolledOut,
    });
  });
});
