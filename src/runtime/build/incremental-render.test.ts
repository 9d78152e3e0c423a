import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sliceTexts } from '../../../test/slice-texts.ts';
import { makeTempTree } from '../../../test/temp-tree.ts';
import { KaddonError } from '../../core/errors.ts';
import type { JsonObject } from '../../core/json.ts';
import { loadJqEngine, type JqEngine } from '../../jq/jq-engine.ts';
import { loadModulesTree, type ModulesTree } from '../../loader/modules-tree.ts';
import { ModuleLoadCache, renderTree, type RenderTreeResult } from './render-tree.ts';

/**
 * The operator's render composes only the modules whose values changed when nothing can carry the
 * change into another module (docs/architecture.md "Incremental composition"); whichever way it
 * goes, it must give what a whole render gives.
 */

const DEPLOYMENT = (name: string, configRef: string): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: app
        image: example/app
        envFrom:
        - configMapRef:
            name: ${configRef}
`;

const CONFIG_MAP = (name: string, data: string): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  value: "${data}"\n`;

/** Modules meeting through a generated ConfigMap's hashed name, a plain one, and a Component over all. */
const MODULES: Record<string, Record<string, string>> = {
  '010-config-owner': {
    'kustomization.yaml': `namespace: team
resources: [plain.yaml]
configMapGenerator:
- name: shared-config
  literals: [VALUE=$(configOwner.value)]
`,
    'plain.yaml': CONFIG_MAP('owner-plain', 'fixed'),
  },
  '020-consumer': {
    'kustomization.yaml': `namespace: team
resources: [deployment.yaml]
configMapGenerator:
- name: consumer-config
  literals: [MODE=$(consumer.mode)]
`,
    'deployment.yaml': DEPLOYMENT('consumer', '$(consumer.configName)'),
  },
  '030-other': {
    'kustomization.yaml': 'namespace: team\nresources: [config.yaml]\n',
    'config.yaml': CONFIG_MAP('$(other.name)', '$(other.value)'),
  },
  '040-standalone': {
    'kustomization.yaml': `namespace: elsewhere
resources: [deployment.yaml]
configMapGenerator:
- name: standalone-config
  literals: [LEVEL=$(standalone.level)]
`,
    'deployment.yaml': DEPLOYMENT('standalone', 'standalone-config'),
  },
  '900-policy': {
    'kustomization.yaml': `apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
labels:
- pairs: {policy: $(policy.level)}
patches:
- target: {kind: Deployment}
  patch: |
    - op: add
      path: /spec/revisionHistoryLimit
      value: 3
`,
  },
};

const ENABLED = ['config-owner', 'consumer', 'other', 'standalone', 'policy'];

interface Values {
  readonly configOwner: JsonObject;
  readonly consumer: JsonObject;
  readonly other: JsonObject;
  readonly standalone: JsonObject;
  readonly policy: JsonObject;
}

const START: Values = {
  configOwner: { value: 'one' },
  consumer: { mode: 'fast', configName: 'consumer-config' },
  other: { name: 'other-config', value: 'a' },
  standalone: { level: 'info' },
  policy: { level: 'baseline' },
};

describe('the operator render composes only the modules that changed, as a whole render would', () => {
  const scratch = makeTempTree('incremental-render');
  let jq: JqEngine;
  let tree: ModulesTree;
  before(async () => {
    jq = await loadJqEngine();
    for (const [dir, files] of Object.entries(MODULES)) scratch.write(`modules/${dir}`, files);
    tree = loadModulesTree([path.join(scratch.root, 'modules')]);
  });
  after(() => {
    scratch.remove();
  });

  const render = (values: Values, cache?: ModuleLoadCache, from = tree): RenderTreeResult =>
    renderTree({
      tree: from,
      values: {
        enabledModules: ENABLED,
        viewFor: (module) => {
          const key = module.replace(/-([a-z])/gu, (_, letter: string) => letter.toUpperCase());
          return { global: { enabledModules: ENABLED }, [key]: values[key as keyof Values] };
        },
      },
      sharedComponentRoots: [],
      jq,
      isolateFailures: true,
      ...(cache ? { cache } : {}),
    });

  /** Renders each step with one cache and without, and returns how the cached render composed each. */
  function walk(steps: readonly Values[]): string[] {
    const cache = new ModuleLoadCache();
    return steps.map((values, step) => {
      const cached = render(values, cache);
      assert.deepEqual(sliceTexts(cached), sliceTexts(render(values)), `step ${String(step)}`);
      assert.deepEqual([...cached.failed.keys()], [...render(values).failed.keys()]);
      return cache.composition.lastPath;
    });
  }

  it('composes only a module whose values changed when no other module refers to its objects', () => {
    const paths = walk([
      START,
      { ...START, other: { name: 'other-config', value: 'b' } },
      { ...START, standalone: { level: 'debug' } },
      { ...START, standalone: { level: 'debug' } },
    ]);
    assert.deepEqual(paths, ['whole', 'changed modules', 'changed modules', 'unchanged']);
  });

  it("composes the whole tree when another module's reference names the changed module's renamed object", () => {
    const sharing = { ...START, consumer: { mode: 'fast', configName: 'shared-config' } };
    const cache = new ModuleLoadCache();
    render(sharing, cache);
    const edited = { ...sharing, configOwner: { value: 'two' } };
    const result = render(edited, cache);
    assert.equal(cache.composition.lastPath, 'whole');
    const ownerSlice = sliceTexts(result)['config-owner'] ?? '';
    const hashed = /name: (shared-config-\w+)/u.exec(ownerSlice)?.[1];
    assert.ok(hashed, ownerSlice);
    assert.match(sliceTexts(result).consumer ?? '', new RegExp(`name: ${hashed}\\b`, 'u'));
    assert.deepEqual(sliceTexts(result), sliceTexts(render(edited)));
  });

  it('composes the whole tree when a changed module now refers to an unchanged one', () => {
    const paths = walk([START, { ...START, consumer: { mode: 'fast', configName: 'shared-config' } }]);
    assert.deepEqual(paths, ['whole', 'whole']);
  });

  it('composes the whole tree when a Component module changed', () => {
    const paths = walk([START, { ...START, policy: { level: 'restricted' } }]);
    assert.deepEqual(paths, ['whole', 'whole']);
  });

  it('fails as the whole tree does when a changed module takes an id an unchanged one holds', () => {
    const cache = new ModuleLoadCache();
    render(START, cache);
    const clash = { ...START, other: { name: 'owner-plain', value: 'b' } };
    const expected = (error: unknown): boolean =>
      error instanceof KaddonError && /already registered id/u.test(error.message);
    assert.throws(() => render(clash), expected);
    assert.throws(() => render(clash, cache), expected);
    // And composes again from the whole tree once the clash is gone.
    assert.deepEqual(sliceTexts(render(START, cache)), sliceTexts(render(START)));
  });

  it('leaves a module that fails out, and composes only what changes after that', () => {
    const broken = { ...START, standalone: { level: { not: 'a string' } } };
    const cache = new ModuleLoadCache();
    assert.deepEqual(
      [START, broken, { ...broken, other: { name: 'other-config', value: 'c' } }].map((values) => {
        const result = render(values, cache);
        assert.deepEqual(sliceTexts(result), sliceTexts(render(values)));
        return [cache.composition.lastPath, [...result.failed.keys()].join()];
      }),
      [
        ['whole', ''],
        ['whole', 'standalone'],
        ['changed modules', 'standalone'],
      ],
    );
  });

  it('composes the whole tree every time while a module declares vars or a Component replaces', () => {
    const variants = {
      vars: {
        '040-standalone/kustomization.yaml': `${MODULES['040-standalone']?.['kustomization.yaml'] ?? ''}vars:
- name: STANDALONE
  objref: {apiVersion: apps/v1, kind: Deployment, name: standalone}
`,
      },
      replacements: {
        '900-policy/kustomization.yaml': `${MODULES['900-policy']?.['kustomization.yaml'] ?? ''}replacements:
- source: {kind: ConfigMap, name: owner-plain, fieldPath: data.value}
  targets:
  - select: {kind: Deployment}
    fieldPaths: [metadata.annotations.plain]
    options: {create: true}
`,
      },
    };
    for (const [variant, changes] of Object.entries(variants)) {
      for (const [dir, files] of Object.entries(MODULES)) scratch.write(`${variant}/${dir}`, files);
      for (const [file, text] of Object.entries(changes)) scratch.write(variant, { [file]: text });
      const changed = loadModulesTree([path.join(scratch.root, variant)]);
      const cache = new ModuleLoadCache();
      const edits = [START, { ...START, other: { name: 'other-config', value: 'b' } }];
      const paths = edits.map((values) => {
        const result = render(values, cache, changed);
        assert.deepEqual(sliceTexts(result), sliceTexts(render(values, undefined, changed)), variant);
        return cache.composition.lastPath;
      });
      assert.deepEqual(paths, ['whole', 'whole'], variant);
    }
  });

  /** A variant of MODULES: the files given replace or add to the base tree's. */
  function variantTree(name: string, changes: Record<string, Record<string, string>>): ModulesTree {
    for (const [dir, files] of Object.entries(MODULES)) scratch.write(`${name}/${dir}`, files);
    for (const [dir, files] of Object.entries(changes)) scratch.write(`${name}/${dir}`, files);
    return loadModulesTree([path.join(scratch.root, name)]);
  }

  /** Renders START then `edited` with one cache: both must fail as the whole tree does. */
  function assertFailsLikeWhole(from: ModulesTree, enabled: Values, edited: Values, message: RegExp): void {
    const cache = new ModuleLoadCache();
    assert.deepEqual(sliceTexts(render(enabled, cache, from)), sliceTexts(render(enabled, undefined, from)));
    const expected = (error: unknown): boolean => error instanceof KaddonError && message.test(error.message);
    assert.throws(() => render(edited, undefined, from), expected, 'the whole tree');
    assert.throws(
      () => render(edited, cache, from),
      expected,
      `the incremental render ${cache.composition.lastPath}`,
    );
  }

  it('fails as the whole tree does when a Component deletes the object whose id a changed module takes', () => {
    const policy = MODULES['900-policy']?.['kustomization.yaml'] ?? '';
    const from = variantTree('deleted-clash', {
      '035-holder': {
        'kustomization.yaml': 'namespace: team\nresources: [held.yaml]\n',
        'held.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: held\n  labels: {doomed: "true"}\n',
      },
      '900-policy': {
        'kustomization.yaml': `${policy}- target: {labelSelector: doomed=true}
  patch: |
    $patch: delete
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: any}
`,
      },
    });
    const withHolder = ['config-owner', 'consumer', 'other', 'holder', 'standalone', 'policy'];
    const renderHolder = (values: Values, cache?: ModuleLoadCache): RenderTreeResult =>
      renderTree({
        tree: from,
        values: {
          enabledModules: withHolder,
          viewFor: (module) => {
            const key = module.replace(/-([a-z])/gu, (_, letter: string) => letter.toUpperCase());
            return { global: { enabledModules: withHolder }, [key]: values[key as keyof Values] };
          },
        },
        sharedComponentRoots: [],
        jq,
        isolateFailures: true,
        ...(cache ? { cache } : {}),
      });
    const cache = new ModuleLoadCache();
    const first = renderHolder(START, cache);
    assert.equal(sliceTexts(first).holder ?? '', '', 'the Component deletes what holder adds');
    const clash = { ...START, other: { name: 'held', value: 'b' } };
    const expected = (error: unknown): boolean =>
      error instanceof KaddonError && /already registered id/u.test(error.message);
    assert.throws(() => renderHolder(clash), expected, 'the whole tree');
    assert.throws(() => renderHolder(clash, cache), expected, 'the incremental render');
  });

  it("fails as the whole tree does when a Component's patch by id would find a changed module's object too", () => {
    const policy = MODULES['900-policy']?.['kustomization.yaml'] ?? '';
    const from = variantTree('patch-by-id', {
      '010-config-owner': {
        'kustomization.yaml': `namespace: team
namePrefix: prefixed-
resources: [plain.yaml]
`,
        'plain.yaml': CONFIG_MAP('settings', 'fixed'),
      },
      '900-policy': {
        'kustomization.yaml': `${policy}- patch: |
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: settings, namespace: team}
    data: {patched: "yes"}
`,
      },
    });
    assertFailsLikeWhole(
      from,
      START,
      { ...START, other: { name: 'settings', value: 'b' } },
      /multiple matches/u,
    );
  });

  it("gives the whole tree's answer when a Component's JSON 6902 patch renames a changed module's object onto an unchanged one's id", () => {
    const policy = MODULES['900-policy']?.['kustomization.yaml'] ?? '';
    const from = variantTree('json6902-rename', {
      '900-policy': {
        'kustomization.yaml': `${policy}- target: {kind: ConfigMap, name: renamed-by-policy}
  patch: |
    - op: replace
      path: /metadata/name
      value: owner-plain
`,
      },
    });
    const cache = new ModuleLoadCache();
    for (const values of [START, { ...START, other: { name: 'renamed-by-policy', value: 'b' } }]) {
      const cached = render(values, cache, from);
      const whole = render(values, undefined, from);
      assert.deepEqual(sliceTexts(cached), sliceTexts(whole));
      assert.deepEqual([...cached.failed.keys()], [...whole.failed.keys()]);
    }
    assert.equal(cache.composition.lastPath, 'whole', 'the renamed object meets an unchanged id');
  });
});
