import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { KustomizeError } from '../core/errors.ts';
import { loadKustomization } from './kustomization-loader.ts';

const root = mkdtempSync(path.join(tmpdir(), 'kaddon-loader-'));
after(() => {
  rmSync(root, { recursive: true, force: true });
});

function tree(name: string, files: Record<string, string>): string {
  const dir = path.join(root, name);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

const configMap = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n';

function loadError(dir: string, allowedRoots?: string[]): KustomizeError {
  try {
    loadKustomization(dir, { displayBase: root, ...(allowedRoots ? { allowedRoots } : {}) });
  } catch (error: unknown) {
    if (error instanceof KustomizeError) return error;
    throw error;
  }
  assert.fail('the load succeeded');
}

describe('loadKustomization', () => {
  it('reads resources, nested kustomizations and referenced files', () => {
    const dir = tree('ok', {
      'base/kustomization.yaml': 'resources:\n- cm.yaml\n',
      'base/cm.yaml': configMap,
      'app/kustomization.yaml': 'resources:\n- ../base\npatches:\n- path: patch.yaml\n',
      'app/patch.yaml': configMap,
    });
    const { node } = loadKustomization(path.join(dir, 'app'), { displayBase: root });
    assert.equal(node.file, 'ok/app/kustomization.yaml');
    const [base] = node.resources;
    assert.equal(base?.type, 'directory');
    assert.equal(node.filePaths.get('patch.yaml'), 'ok/app/patch.yaml');
  });

  it('refuses a resource file that a symlink leads outside the kustomization root', () => {
    const dir = tree('escape', {
      'outside/secret.yaml': configMap,
      'app/kustomization.yaml': 'resources:\n- link.yaml\n',
    });
    symlinkSync(path.join(dir, 'outside/secret.yaml'), path.join(dir, 'app/link.yaml'));
    const error = loadError(path.join(dir, 'app'));
    assert.equal(error.code, 'path-not-allowed');
    assert.match(error.message, /escape\/app\/kustomization\.yaml/);
    assert.match(error.message, /is not in or below/);
  });

  it('refuses a patch file given as a path out of the root', () => {
    const dir = tree('dotdot', {
      'p.yaml': configMap,
      'app/kustomization.yaml': 'patches:\n- path: ../p.yaml\n',
    });
    assert.equal(loadError(path.join(dir, 'app')).code, 'path-not-allowed');
  });

  it('with allowed roots, refuses a directory that resolves outside them', () => {
    const dir = tree('roots', {
      'elsewhere/kustomization.yaml': 'resources:\n- cm.yaml\n',
      'elsewhere/cm.yaml': configMap,
      'modules/app/kustomization.yaml': 'resources:\n- ../../elsewhere\n',
    });
    const error = loadError(path.join(dir, 'modules/app'), [path.join(dir, 'modules')]);
    assert.equal(error.code, 'path-not-allowed');
    assert.match(error.message, /outside the allowed roots/);
  });

  it('detects a cycle through resources', () => {
    const dir = tree('cycle', {
      'a/kustomization.yaml': 'resources:\n- ../b\n',
      'b/kustomization.yaml': 'resources:\n- ../a\n',
    });
    const error = loadError(path.join(dir, 'a'));
    assert.equal(error.code, 'cycle');
    assert.match(error.message, /cycle detected/);
  });

  it('names the file and line of a YAML syntax error', () => {
    const dir = tree('syntax', {
      'kustomization.yaml': 'resources:\n- cm.yaml\n',
      'cm.yaml': 'kind: ConfigMap\nmetadata: {name: [\n',
    });
    assert.throws(
      () => loadKustomization(dir, { displayBase: root }),
      (error: unknown) => error instanceof Error && /syntax\/cm\.yaml:\d+/.test(error.message),
    );
  });

  it('refuses remote resources instead of fetching them', () => {
    const dir = tree('remote', {
      'kustomization.yaml': 'resources:\n- https://github.com/org/repo//base?ref=v1\n',
    });
    const error = loadError(dir);
    assert.equal(error.code, 'path-not-allowed');
    assert.match(error.message, /remote resource/);
  });

  it('refuses fields it does not run, naming the field and the file', () => {
    const dir = tree('helm', { 'kustomization.yaml': 'helmCharts:\n- name: redis\n' });
    const error = loadError(dir);
    assert.equal(error.code, 'kustomization-invalid');
    assert.match(error.message, /helm\/kustomization\.yaml': field "helmCharts" is not supported/);
  });
});
