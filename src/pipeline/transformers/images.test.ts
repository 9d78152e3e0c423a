import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { corpusCasesDir } from '../../../test/repo-root.ts';
import type { JsonObject } from '../../core/json.ts';
import type { FieldSpec, ImageEntry, Kustomization } from '../../core/kustomization.ts';
import { Resource } from '../../core/resource.ts';
import { parseYamlDocument, parseYamlDocuments } from '../../core/yaml/yaml.ts';
import { splitImage, transformImages } from './images.ts';

const casesDir = corpusCasesDir('kustomize');

/** kustomize's images table, `create: true` included. */
const IMAGE_SPECS: FieldSpec[] = [
  { path: 'spec/containers[]/image', create: true },
  { path: 'spec/initContainers[]/image', create: true },
  { path: 'spec/template/spec/containers[]/image', create: true },
  { path: 'spec/template/spec/initContainers[]/image', create: true },
];

function readObjects(file: string): JsonObject[] {
  return parseYamlDocuments(readFileSync(file, 'utf8'), file).map((doc) => doc.value as JsonObject);
}

function readKustomization(file: string): Kustomization {
  return parseYamlDocument(readFileSync(file, 'utf8'), file) as Kustomization;
}

function resourcesOf(objects: readonly JsonObject[]): Resource[] {
  return objects.map((obj) => new Resource(structuredClone(obj), 'test'));
}

function imageOf(resource: Resource, containerPath: readonly string[]): unknown {
  let node: unknown = resource.obj;
  for (const part of containerPath) node = (node as Record<string, unknown>)[part];
  return (node as { image?: unknown }).image;
}

describe('transformImages on images-01-image-transformer', () => {
  const dir = path.join(casesDir, 'images-01-image-transformer');
  const resources = resourcesOf(readObjects(path.join(dir, 'input/resources.yaml')));
  const images = readKustomization(path.join(dir, 'input/kustomization.yaml')).images ?? [];
  transformImages(resources, images, IMAGE_SPECS);
  const expected = readObjects(path.join(dir, 'expected.yaml'));

  for (const resource of resources) {
    it(`rewrites ${resource.kind}/${resource.name} as kustomize did`, () => {
      const want = expected.find(
        (obj) =>
          obj.kind === resource.kind &&
          JSON.stringify(obj.metadata) === JSON.stringify(resource.obj.metadata),
      );
      assert.deepEqual(resource.obj, want);
    });
  }
});

describe('transformImages rules', () => {
  const pod = (...images: string[]): Resource =>
    new Resource(
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'p' },
        spec: { containers: images.map((image) => ({ image })) },
      },
      'test',
    );
  const run = (entry: ImageEntry, ...images: string[]): unknown[] => {
    const resource = pod(...images);
    transformImages([resource], [entry], IMAGE_SPECS);
    return images.map((_, i) => imageOf(resource, ['spec', 'containers', String(i)]));
  };

  it('applies tagSuffix once per pass, so twice on a standard path, and drops the digest', () => {
    assert.deepEqual(run({ name: 'redis', tagSuffix: '-alpine' }, 'redis:7@sha256:abc'), [
      'redis:7-alpine-alpine',
    ]);
  });

  it('keeps the digest with newName only, sets both with newTag and digest', () => {
    assert.deepEqual(run({ name: 'nginx', newName: 'apache' }, 'nginx:1.2@sha256:abc'), [
      'apache:1.2@sha256:abc',
    ]);
    assert.deepEqual(run({ name: 'nginx', newTag: '2', digest: 'sha256:f' }, 'nginx:1@sha256:abc'), [
      'nginx:2@sha256:f',
    ]);
  });

  it('matches the name plus an optional tag and digest only', () => {
    assert.deepEqual(run({ name: 'nginx', newTag: 'x' }, 'nginx', 'nginx-exporter:1', 'my/nginx:1'), [
      'nginx:x',
      'nginx-exporter:1',
      'my/nginx:1',
    ]);
  });

  it('treats a name that is no valid regex as matching nothing', () => {
    assert.deepEqual(run({ name: 'ngin(x', newTag: 'x' }, 'ngin(x:1'), ['ngin(x:1']);
  });

  it('never creates image fields, though the table says create: true', () => {
    const deployment = new Resource(
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: {} },
      't',
    );
    transformImages([deployment], [{ name: 'nginx', newTag: 'x' }], IMAGE_SPECS);
    assert.deepEqual(deployment.obj.spec, {});
  });

  it('leaves CustomResourceDefinitions alone', () => {
    const crd = new Resource(
      {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'c' },
        spec: { containers: [{ image: 'nginx' }] },
      },
      'test',
    );
    transformImages([crd], [{ name: 'nginx', newTag: 'x' }], IMAGE_SPECS);
    assert.equal(imageOf(crd, ['spec', 'containers', '0']), 'nginx');
  });

  it('updates an image field that only a field spec names', () => {
    const runner = new Resource(
      { apiVersion: 'x/v1', kind: 'Runner', metadata: { name: 'r' }, spec: { image: 'nginx' } },
      't',
    );
    transformImages([runner], [{ name: 'nginx', newTag: 'x' }], [{ kind: 'Runner', path: 'spec/image' }]);
    assert.equal(imageOf(runner, ['spec']), 'nginx:x');
  });

  it('updates component a of comp-03a-order-ab before component b patches the image', () => {
    const dir = path.join(casesDir, 'comp-03a-order-ab');
    const resources = resourcesOf(readObjects(path.join(dir, 'input/base/deploy.yaml')));
    const images = readKustomization(path.join(dir, 'input/a/kustomization.yaml')).images ?? [];
    transformImages(resources, images, IMAGE_SPECS);
    const [deploy] = resources;
    assert.ok(deploy);
    assert.equal(imageOf(deploy, ['spec', 'template', 'spec', 'containers', '0']), 'nginx:1.26');
  });
});

describe('splitImage', () => {
  const cases: [string, string, string, string][] = [
    ['nginx', 'nginx', '', ''],
    ['nginx:1.2.3', 'nginx', '1.2.3', ''],
    ['nginx@sha256:12345', 'nginx', '', 'sha256:12345'],
    ['nginx:1.2.3@sha256:12345', 'nginx', '1.2.3', 'sha256:12345'],
    ['docker.io/nginx:1.2.3', 'docker.io/nginx', '1.2.3', ''],
    ['foo.com:443/nginx:1.2.3', 'foo.com:443/nginx', '1.2.3', ''],
    ['foo.com:443/nginx:1.2.3@sha256:12345', 'foo.com:443/nginx', '1.2.3', 'sha256:12345'],
    ['localhost:5000/tool', 'localhost:5000/tool', '', ''],
  ];
  for (const [image, name, tag, digest] of cases) {
    it(`splits ${image}`, () => {
      assert.deepEqual(splitImage(image), { name, tag, digest });
    });
  }
});
