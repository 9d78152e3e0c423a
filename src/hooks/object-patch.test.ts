import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ObjectPatchError, parseObjectPatches } from './object-patch.ts';

describe('parseObjectPatches ($KUBERNETES_PATCH_PATH)', () => {
  it('reads JSON objects written one after another, as `jq -c … >>` appends them', () => {
    const text =
      '{"operation":"Delete","kind":"Pod","namespace":"default","name":"nginx"}\n' +
      '{"operation":"MergePatch","kind":"Deployment","namespace":"default","name":"nginx","mergePatch":{"spec":{"replicas":1}}}\n';
    assert.deepEqual(parseObjectPatches(text, 'hooks/a.sh'), [
      { operation: 'Delete', kind: 'Pod', namespace: 'default', name: 'nginx' },
      {
        operation: 'MergePatch',
        kind: 'Deployment',
        namespace: 'default',
        name: 'nginx',
        mergePatch: { spec: { replicas: 1 } },
        ignoreMissingObject: false,
      },
    ]);
  });

  it('reads YAML documents, with objects and patches given as strings of JSON or YAML', () => {
    const text = [
      'operation: Create',
      'object: |',
      '  {"apiVersion":"v1", "kind":"ConfigMap",',
      '   "metadata":{"namespace":"default","name":"testcm"}, "data":{"foo": "bar"}}',
      '---',
      'operation: MergePatch',
      'kind: Deployment',
      'namespace: default',
      'name: nginx',
      'ignoreMissingObject: true',
      'mergePatch: |',
      '  spec:',
      '    replicas: 1',
      '---',
      'operation: JSONPatch',
      'kind: Deployment',
      'name: nginx',
      'jsonPatch: \'[{"op": "replace", "path": "/spec/replicas", "value": 1}]\'',
    ].join('\n');
    const [create, merge, json] = parseObjectPatches(text, 'hooks/a.sh');
    assert.deepEqual(create, {
      operation: 'Create',
      object: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { namespace: 'default', name: 'testcm' },
        data: { foo: 'bar' },
      },
      target: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'testcm' },
    });
    assert.deepEqual(merge && 'mergePatch' in merge ? merge.mergePatch : undefined, {
      spec: { replicas: 1 },
    });
    assert.equal(merge && 'ignoreMissingObject' in merge ? merge.ignoreMissingObject : undefined, true);
    assert.deepEqual(json && 'jsonPatch' in json ? json.jsonPatch : undefined, [
      { op: 'replace', path: '/spec/replicas', value: 1 },
    ]);
    assert.equal(json && 'namespace' in json ? json.namespace : undefined, '', 'no namespace: cluster scope');
  });

  it('is empty for an empty file', () => {
    assert.deepEqual(parseObjectPatches(' \n', 'hooks/a.sh'), []);
  });

  const refused: [string, string, RegExp][] = [
    [
      'an unknown operation',
      '{"operation":"Apply","kind":"Pod","name":"a"}',
      /operation #1: 'operation' must be one of/,
    ],
    [
      'a field the operation does not have',
      '{"operation":"Delete","kind":"Pod","name":"a","jqFilter":"."}',
      /'jqFilter' is not a field of Delete/,
    ],
    ['a delete without a name', '{"operation":"Delete","kind":"Pod"}', /'name' is required/],
    [
      'an object without metadata.name',
      '{"operation":"Create","object":{"apiVersion":"v1","kind":"ConfigMap"}}',
      /needs metadata.name/,
    ],
    [
      'an empty merge patch',
      '{"operation":"MergePatch","kind":"Pod","name":"a","mergePatch":{}}',
      /non-empty mapping/,
    ],
    [
      'a JQPatch without a filter',
      '{"operation":"JQPatch","kind":"Pod","name":"a"}',
      /'jqFilter' must be a jq expression/,
    ],
    ['a document that is not a mapping', '[1, 2]', /operation #1: is not a mapping/],
    ['text that is neither JSON nor YAML', 'operation: [', /neither JSON nor YAML/],
  ];
  for (const [what, text, message] of refused) {
    it(`refuses ${what}, naming the hook and the operation`, () => {
      assert.throws(
        () => parseObjectPatches(text, 'hooks/a.sh'),
        (error: unknown) =>
          error instanceof ObjectPatchError &&
          error.message.startsWith("hook 'hooks/a.sh': $KUBERNETES_PATCH_PATH ") &&
          message.test(error.message),
      );
    });
  }
});
