import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { caseObjects, objectNamed } from '../../test/conformance-case.ts';
import { deepClone, isJsonObject, type JsonObject, type JsonValue } from '../core/json.ts';
import { getPath } from '../../test/get-path.ts';
import { PatchError } from './json6902.ts';
import { parseWithLibrary, parseYamlDocument } from '../core/yaml/yaml.ts';
import { strategicMerge } from './strategic-merge.ts';

/** A conformance case: its input object, the patch document for it, and kustomize's recorded result. */
function recorded(caseName: string, resources: string, patch: string, kind: string, name: string) {
  return {
    result: strategicMerge(
      objectNamed(caseObjects(caseName, `input/${resources}`), kind, name),
      objectNamed(caseObjects(caseName, `input/${patch}`), kind, name),
    ),
    expected: objectNamed(caseObjects(caseName, 'expected-fifo.yaml'), kind, name),
  };
}

function parse(text: string): JsonObject {
  const value: unknown = parseYamlDocument(text, 'test patch');
  assert.ok(isJsonObject(value));
  return value;
}

/** A field of a merge result, which may be null. */
function at(obj: JsonValue | null | undefined, fieldPath: readonly string[]): JsonValue | undefined {
  return getPath(obj ?? undefined, fieldPath);
}

const podSpecPath = ['spec', 'template', 'spec'];
const containerPath = [...podSpecPath, 'containers'];

describe('strategicMerge: list merge keys and order [smp-01]', () => {
  const { result, expected } = recorded(
    'smp-01-list-merge-keys',
    'deploy.yaml',
    'patch.yaml',
    'Deployment',
    'app',
  );
  const mainContainer = (obj: JsonValue | null): JsonValue | undefined => {
    const containers = at(obj, containerPath);
    return Array.isArray(containers)
      ? containers.find((c) => isJsonObject(c) && c.name === 'main')
      : undefined;
  };
  const names = (list: JsonValue | undefined): JsonValue[] =>
    Array.isArray(list) ? list.map((item) => (isJsonObject(item) ? (item.name ?? null) : item)) : [];

  it('merges containers by name: patch containers first, then the untouched ones', () => {
    assert.deepEqual(names(at(result, containerPath)), ['main', 'new-sidecar', 'sidecar']);
    assert.deepEqual(at(result, containerPath), getPath(expected, containerPath));
  });

  it('merges env by name with the patch entries first', () => {
    assert.deepEqual(getPath(mainContainer(result), ['env']), getPath(mainContainer(expected), ['env']));
    assert.deepEqual(names(getPath(mainContainer(result), ['env'])), ['B', 'C', 'A']);
  });

  it('merges container ports on containerPort alone when no port names a protocol', () => {
    assert.deepEqual(getPath(mainContainer(result), ['ports']), [
      { containerPort: 9090, name: 'prom' },
      { containerPort: 7070, name: 'new' },
      { containerPort: 8080, name: 'http' },
    ]);
  });

  it('merges volumeMounts by mountPath', () => {
    assert.deepEqual(
      getPath(mainContainer(result), ['volumeMounts']),
      getPath(mainContainer(expected), ['volumeMounts']),
    );
  });

  it('merges volumes by name, merging the maps inside', () => {
    assert.deepEqual(at(result, [...podSpecPath, 'volumes']), [
      { name: 'cache', emptyDir: { medium: 'Memory' } },
      { name: 'data', emptyDir: {} },
    ]);
  });

  it('merges imagePullSecrets by name and finalizers as a set, patch values first', () => {
    assert.deepEqual(at(result, [...podSpecPath, 'imagePullSecrets']), [{ name: 'reg2' }, { name: 'reg1' }]);
    assert.deepEqual(at(result, ['metadata', 'finalizers']), ['b.example.com/f2', 'a.example.com/f1']);
  });

  it('replaces lists without a patch strategy: tolerations and args', () => {
    assert.deepEqual(at(result, [...podSpecPath, 'tolerations']), [{ key: 'b', operator: 'Exists' }]);
    assert.deepEqual(getPath(mainContainer(result), ['args']), ['--c']);
  });

  it('produces exactly the recorded object', () => {
    assert.deepEqual(result, expected);
  });
});

describe('strategicMerge: directives [smp-02, comp-04]', () => {
  const { result, expected } = recorded(
    'smp-02-directives',
    'resources.yaml',
    'patch.yaml',
    'Deployment',
    'app',
  );

  it('deletes a map key whose patch value is null', () => {
    assert.deepEqual(at(result, ['metadata', 'labels']), { keep: 'yes' });
    assert.equal(at(result, [...podSpecPath, 'nodeSelector']), undefined);
  });

  it('replaces a map carrying $patch: replace', () => {
    assert.deepEqual(at(result, ['spec', 'template', 'metadata', 'annotations']), {
      c: '3',
    });
  });

  it('removes the list element carrying $patch: delete', () => {
    const containers = at(result, containerPath);
    assert.ok(Array.isArray(containers));
    assert.deepEqual(
      containers.map((c) => (isJsonObject(c) ? c.name : c)),
      ['main'],
    );
  });

  it('replaces a list holding a lone `- $patch: replace` element', () => {
    assert.deepEqual(at(result, [...podSpecPath, 'volumes']), [{ name: 'v3', emptyDir: {} }]);
    assert.deepEqual(at(result, [...containerPath]), [
      { name: 'main', image: 'main:1', env: [{ name: 'ONLY', value: 'this' }] },
    ]);
  });

  it('produces exactly the recorded object', () => {
    assert.deepEqual(result, expected);
  });

  it('returns null for a whole-document $patch: delete', () => {
    const caseName = 'smp-02-directives';
    const configMap = objectNamed(caseObjects(caseName, 'input/resources.yaml'), 'ConfigMap', 'delete-me');
    assert.equal(
      strategicMerge(
        configMap,
        objectNamed(caseObjects(caseName, 'input/patch.yaml'), 'ConfigMap', 'delete-me'),
      ),
      null,
    );
    assert.equal(caseObjects(caseName, 'expected-fifo.yaml').length, 1);
    const pod = objectNamed(
      caseObjects('comp-04-component-deletes-base-resource', 'input/base/debug-pod.yaml'),
      'Pod',
      'debug',
    );
    const patch = parse('$patch: delete\napiVersion: v1\nkind: Pod\nmetadata:\n  name: debug\n');
    assert.equal(strategicMerge(pod, patch), null);
  });

  it('rejects an unknown $patch value, naming it', () => {
    const target = objectNamed(caseObjects('smp-02-directives', 'input/resources.yaml'), 'Deployment', 'app');
    const patch = parse(
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n  $patch: retain\n',
    );
    assert.throws(
      () => strategicMerge(target, patch),
      (error: unknown) =>
        error instanceof PatchError && error.message.startsWith("unknown patch strategy 'retain'"),
    );
  });
});

describe('strategicMerge: Service ports and retainKeys [smp-04]', () => {
  it('merges Service ports on port and protocol', () => {
    const { result, expected } = recorded(
      'smp-04-service-ports-and-retainkeys',
      'resources.yaml',
      'patch.yaml',
      'Service',
      'dns',
    );
    assert.deepEqual(result, expected);
    assert.deepEqual(at(result, ['spec', 'ports']), [
      { name: 'dns-tcp', port: 53, protocol: 'TCP' },
      { name: 'dns-udp', port: 53, protocol: 'UDP', targetPort: 5353 },
    ]);
  });

  it('ignores the retainKeys strategy: rollingUpdate survives a switch to Recreate', () => {
    const { result, expected } = recorded(
      'smp-04-service-ports-and-retainkeys',
      'resources.yaml',
      'patch.yaml',
      'Deployment',
      'app',
    );
    assert.deepEqual(result, expected);
    assert.deepEqual(at(result, ['spec', 'strategy']), {
      type: 'Recreate',
      rollingUpdate: { maxSurge: 1 },
    });
  });
});

describe('strategicMerge: unsupported directives [smp-05]', () => {
  it('copies $setElementOrder and $deleteFromPrimitiveList into the object as ordinary keys', () => {
    const { result, expected } = recorded(
      'smp-05-unsupported-directives-pass-through',
      'deploy.yaml',
      'patch.yaml',
      'Deployment',
      'app',
    );
    assert.deepEqual(result, expected);
    assert.deepEqual(at(result, ['metadata', '$deleteFromPrimitiveList/finalizers']), ['b']);
    assert.deepEqual(at(result, ['metadata', 'finalizers']), ['a', 'b', 'c']);
  });
});

describe('strategicMerge: order with multi-field keys [smp-06]', () => {
  const portNames = (obj: JsonObject | null): JsonValue[] => {
    const ports = at(obj, ['spec', 'ports']);
    return Array.isArray(ports) ? ports.map((p) => (isJsonObject(p) ? (p.name ?? null) : p)) : [];
  };

  it('puts new patch elements first, then every original in place, when port and protocol are both set', () => {
    const { result, expected } = recorded(
      'smp-06-multi-key-list-order',
      'svc.yaml',
      'patch.yaml',
      'Service',
      'multi',
    );
    assert.deepEqual(result, expected);
    assert.deepEqual(portNames(result), ['new-https', 'a-tcp', 'b-udp', 'c-http']);
  });

  it('puts all patch elements first when protocol is absent and the key is port alone', () => {
    const { result, expected } = recorded(
      'smp-06-multi-key-list-order',
      'svc.yaml',
      'patch.yaml',
      'Service',
      'single',
    );
    assert.deepEqual(result, expected);
    assert.deepEqual(portNames(result), ['new-https', 'b', 'a']);
  });
});

describe('strategicMerge: maps and scalars [patch-02]', () => {
  it('replaces scalars and merges maps, keeping what the patch does not mention', () => {
    const caseName = 'patch-02-smp-without-target-and-multidoc';
    const deployment = recorded(caseName, 'resources.yaml', 'multi.yaml', 'Deployment', 'orders-api');
    assert.deepEqual(deployment.result, deployment.expected);
    const configMap = recorded(caseName, 'resources.yaml', 'multi.yaml', 'ConfigMap', 'orders-api');
    assert.deepEqual(configMap.result, configMap.expected);
  });
});

// Behaviours below come from kustomize's kyaml/yaml/merge2 and kyaml's merge2/walk sources rather than a
// recorded case.
describe('strategicMerge: schema lookup', () => {
  const deployment = (apiVersion: string) =>
    parse(`apiVersion: ${apiVersion}
kind: Deployment
metadata: {name: app}
spec:
  template:
    spec:
      containers:
      - {name: a, image: a:1}
      - {name: b, image: b:1}
`);
  const patch = (apiVersion: string) =>
    parse(`apiVersion: ${apiVersion}
kind: Deployment
metadata: {name: app}
spec:
  template:
    spec:
      containers:
      - {name: b, image: b:2}
`);

  it('replaces every list of a kind without schema, such as a v1 Deployment', () => {
    const result = strategicMerge(deployment('v1'), patch('v1'));
    assert.deepEqual(at(result, containerPath), [{ name: 'b', image: 'b:2' }]);
  });

  it('replaces the lists of a custom resource', () => {
    const widget = parse(
      'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec:\n  items: [{name: a}, {name: b}]\n',
    );
    const result = strategicMerge(widget, parse('spec:\n  items: [{name: b, size: 2}]\n'));
    assert.deepEqual(at(result, ['spec', 'items']), [{ name: 'b', size: 2 }]);
  });

  it('looks up a map embedded in a custom resource by its own apiVersion and kind', () => {
    const wrapper = (inner: JsonObject): JsonObject => ({
      apiVersion: 'example.com/v1',
      kind: 'Rollout',
      metadata: { name: 'app' },
      spec: { workload: inner },
    });
    const result = strategicMerge(wrapper(deployment('apps/v1')), wrapper(patch('apps/v1')));
    assert.deepEqual(at(result, ['spec', 'workload', ...containerPath]), [
      { name: 'b', image: 'b:2' },
      { name: 'a', image: 'a:1' },
    ]);
  });
});

describe('strategicMerge: corner cases of kyaml merge2', () => {
  const base = parse(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
  creationTimestamp: null
spec:
  template:
    spec:
      containers:
      - name: main
        image: main:1
        env:
        - {name: A, value: "1"}
        - {name: B, value: "2"}
`);

  it('adds a list the object lacks, dropping null fields of the added maps', () => {
    const patch = parse(`spec:
  template:
    spec:
      volumes:
      - name: data
        emptyDir: {}
        hostPath: null
`);
    const result = strategicMerge(base, patch);
    assert.deepEqual(at(result, [...podSpecPath, 'volumes']), [{ name: 'data', emptyDir: {} }]);
  });

  it('keeps null fields of the object that the patch does not mention (conformance case yaml-01)', () => {
    const result = strategicMerge(base, parse('metadata:\n  labels: {app: web}\n'));
    assert.deepEqual(at(result, ['metadata']), {
      name: 'app',
      creationTimestamp: null,
      labels: { app: 'web' },
    });
  });

  it('clears the fields of the object written with no value, on both YAML paths (conformance case smp-07)', () => {
    const text = `apiVersion: apps/v1
kind: Deployment
metadata: {name: gw}
spec:
  template:
    spec:
      affinity:
        nodeAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          requiredDuringSchedulingIgnoredDuringExecution: null
      containers:
      - name: proxy
        resources:
          limits:
`;
    const library = parseWithLibrary(text, 'gw.yaml')[0]?.value;
    assert.ok(isJsonObject(library));
    for (const target of [parse(text), library]) {
      const result = strategicMerge(deepClone(target), parse('spec: {replicas: 2}\n'));
      assert.deepEqual(at(result, [...podSpecPath, 'affinity']), {
        nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: null },
      });
      assert.deepEqual(at(result, containerPath), [{ name: 'proxy', resources: {} }]);
    }
  });

  it('empties a list when a patch element lacks the merge key (kustomize#5369)', () => {
    const patch = parse(`spec:
  template:
    spec:
      containers:
      - name: main
        env:
        - value: "3"
`);
    const result = strategicMerge(base, patch);
    const containers = at(result, containerPath);
    assert.ok(Array.isArray(containers) && isJsonObject(containers[0]));
    assert.deepEqual(containers[0].env, []);
  });

  it('rejects a patch whose field has another type than the object', () => {
    assert.throws(
      () => strategicMerge(base, parse('spec:\n  template: nginx\n')),
      (error: unknown) => error instanceof PatchError && /spec\.template/.test(error.message),
    );
  });

  it('leaves its inputs untouched', () => {
    const target = deepClone(base);
    const patch = parse(
      'spec:\n  template:\n    spec:\n      containers:\n      - {name: main, $patch: delete}\n',
    );
    const patchCopy = deepClone(patch);
    strategicMerge(target, patch);
    assert.deepEqual(target, base);
    assert.deepEqual(patch, patchCopy);
  });
});
