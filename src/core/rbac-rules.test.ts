import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rbacObjects } from './rbac-rules.ts';

const subject = { name: 'ops', serviceAccount: 'kaddon', serviceAccountNamespace: 'system' };

describe('rbacObjects', () => {
  it('puts cluster-wide permissions in a ClusterRole and the others in a Role per namespace, each bound', () => {
    const objects = rbacObjects(
      [
        { group: 'apps', resource: 'deployments', verbs: ['create', 'get'], namespace: 'web' },
        { group: '', resource: 'nodes', verbs: ['watch', 'list', 'get'] },
        { group: '', resource: 'services', verbs: ['get', 'create'], namespace: 'web' },
        { group: 'apps', resource: 'deployments', verbs: ['delete'], namespace: 'web' },
        { group: '', resource: 'configmaps', verbs: ['get'], namespace: 'db' },
      ],
      subject,
    );
    assert.deepEqual(
      objects.map((object) => `${JSON.stringify(object.kind)} ${JSON.stringify(object.metadata)}`),
      [
        '"ClusterRole" {"name":"ops"}',
        '"ClusterRoleBinding" {"name":"ops"}',
        '"Role" {"name":"ops","namespace":"db"}',
        '"RoleBinding" {"name":"ops","namespace":"db"}',
        '"Role" {"name":"ops","namespace":"web"}',
        '"RoleBinding" {"name":"ops","namespace":"web"}',
      ],
    );
    assert.deepEqual(objects[0]?.rules, [
      { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list', 'watch'] },
    ]);
    assert.deepEqual(objects[4]?.rules, [
      { apiGroups: [''], resources: ['services'], verbs: ['get', 'create'] },
      { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'create', 'delete'] },
    ]);
    const binding = objects[5];
    assert.ok(binding);
    assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: 'kaddon', namespace: 'system' }]);
    assert.deepEqual(binding.roleRef, {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'Role',
      name: 'ops',
    });
  });

  it('merges resources with the same group and verbs into one rule, and leaves out what the ClusterRole grants', () => {
    const objects = rbacObjects(
      [
        { group: '', resource: 'secrets', verbs: ['get', 'list'] },
        { group: '', resource: 'configmaps', verbs: ['list', 'get'] },
        { group: '', resource: 'secrets', verbs: ['get', 'list', 'watch'], namespace: 'web' },
        { group: '', resource: 'configmaps', verbs: ['get'], namespace: 'web' },
      ],
      subject,
    );
    assert.deepEqual(objects[0]?.rules, [
      { apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['get', 'list'] },
    ]);
    assert.deepEqual(objects[2]?.rules, [{ apiGroups: [''], resources: ['secrets'], verbs: ['watch'] }]);
    assert.equal(objects.length, 4, 'no Role is left for what the ClusterRole covers in full');
  });

  it('prints nothing for nothing', () => {
    assert.deepEqual(rbacObjects([], subject), []);
  });
});
