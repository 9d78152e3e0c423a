import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';

/** A Kubernetes object or kustomization as plain data, written out as YAML. */
export type Manifest = Record<string, unknown>;

export function writeTextFile(dir: string, name: string, content: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, name), content);
}

export function writeManifest(dir: string, name: string, value: Manifest): void {
  writeTextFile(dir, name, stringify(value));
}
