import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { isJsonObject, type JsonObject } from '../src/core/json.ts';
import type { Kustomization, KustomizationNode } from '../src/core/kustomization.ts';
import { Resource } from '../src/core/resource.ts';
import { parseYamlDocument, parseYamlDocuments } from '../src/core/yaml/yaml.ts';
import { corpusCasesDir } from './repo-root.ts';

/** Unit tests read their inputs and expectations from the kustomize conformance corpus. */
export const casesDir = corpusCasesDir('kustomize');

/** Every object of a YAML file of a case, e.g. `expected.yaml` or `input/deploy.yaml`. */
export function caseObjects(caseName: string, file: string): JsonObject[] {
  return readObjects(path.join(casesDir, caseName, file));
}

/** The text of a file of a case. */
export function caseText(caseName: string, file: string): string {
  return readFileSync(path.join(casesDir, caseName, file), 'utf8');
}

/** The object of `kind` and `name` among `objects`. */
export function objectNamed(objects: readonly JsonObject[], kind: string, name: string): JsonObject {
  const found = objects.find(
    (obj) => obj.kind === kind && isJsonObject(obj.metadata) && obj.metadata.name === name,
  );
  assert.ok(found, `no ${kind}/${name}`);
  return found;
}

export function expectedObjects(caseName: string): JsonObject[] {
  return caseObjects(caseName, 'expected.yaml');
}

/** The object kustomize output for `name`, with or without its hash suffix. */
export function expectedObjectNamed(caseName: string, name: string): JsonObject {
  const pattern = new RegExp(`^${name}(-[a-z0-9]{10})?$`);
  const found = expectedObjects(caseName).find(
    (obj) =>
      isJsonObject(obj.metadata) && typeof obj.metadata.name === 'string' && pattern.test(obj.metadata.name),
  );
  assert.ok(found, `${caseName} has no object ${name}`);
  return found;
}

function readObjects(file: string): JsonObject[] {
  return parseYamlDocuments(readFileSync(file, 'utf8'), file).map((doc) => {
    assert.ok(isJsonObject(doc.value), `${file} holds a document that is not an object`);
    return doc.value;
  });
}

export function readResources(file: string): Resource[] {
  return readObjects(file).map((obj) => new Resource(obj, file));
}

export function readKustomization(file: string): Kustomization {
  const value = parseYamlDocument(readFileSync(file, 'utf8'), file);
  assert.ok(isJsonObject(value), `${file} is not a kustomization`);
  return value;
}

/** A case's kustomization directory as the loader hands it over: every file read. */
export function caseNode(caseName: string, entry = '.'): KustomizationNode {
  const dir = path.join(casesDir, caseName, 'input', entry);
  const files = new Map<string, Uint8Array>();
  for (const rel of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (statSync(path.join(dir, rel)).isFile()) files.set(rel, readFileSync(path.join(dir, rel)));
  }
  return nodeOf(readKustomization(path.join(dir, 'kustomization.yaml')), files, dir);
}

/** A kustomization node with no resources or components, for a generator or transformer test. */
export function nodeOf(
  spec: Kustomization,
  files = new Map<string, Uint8Array>(),
  dir = 'app',
): KustomizationNode {
  const filePaths = new Map([...files.keys()].map((rel) => [rel, path.join(dir, rel)]));
  const empty = { resources: [], components: [], generators: [], transformers: [], validators: [] };
  return {
    dir,
    file: path.join(dir, 'kustomization.yaml'),
    kind: 'Kustomization',
    spec,
    files,
    filePaths,
    ...empty,
  };
}
