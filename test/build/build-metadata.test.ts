import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli } from '../run-cli.ts';
import { makeTempTree } from '../temp-tree.ts';

const tmp = makeTempTree('build-metadata');
after(() => {
  tmp.remove();
});

describe('buildMetadata in a module (kaddon build)', () => {
  it('annotates the module’s objects with their origin, naming the module, and the transformers that ran', async () => {
    const dir = tmp.write('tree', {
      'modules/values.yaml': 'appEnabled: true\n',
      'modules/010-app/kustomization.yaml':
        'resources: [cm.yaml]\nnamePrefix: app-\nbuildMetadata: [originAnnotations, transformerAnnotations, managedByLabel]\n',
      'modules/010-app/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n',
    });
    const run = await runCli(['build', path.join(dir, 'modules')]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, / {4}config\.kubernetes\.io\/origin: \|\n {6}path: cm\.yaml\n {6}module: app\n/);
    assert.match(
      run.stdout,
      / {4}alpha\.config\.kubernetes\.io\/transformations: \|\n {6}- configuredIn: kustomization\.yaml\n {8}configuredBy:\n {10}apiVersion: builtin\n {10}kind: PrefixTransformer\n/,
    );
    assert.match(run.stdout, /app\.kubernetes\.io\/managed-by: kustomize-v5\.5\.0\n/);
    assert.match(run.stdout, /name: app-settings\n/);
  });
});
