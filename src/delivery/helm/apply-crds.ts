import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { KaddonError } from '../../core/errors.ts';
import { isJsonObject, scalarText, type JsonObject } from '../../core/json.ts';
import { parseYamlDocuments } from '../../core/yaml/yaml.ts';
import type { KubeClient } from '../kube-client.ts';

export interface ApplyCrdsOptions {
  /** ADDON_OPERATOR_CRD_EXTRA_LABELS, parsed; added to every CRD. */
  readonly extraLabels: Readonly<Record<string, string>>;
  /** ADDON_OPERATOR_CRD_FILTER_PREFIXES (default `doc-,_`): files whose names start so are skipped. */
  readonly filterPrefixes: readonly string[];
}

class CrdError extends KaddonError {
  readonly code = 'crd-invalid';
  readonly file: string;
  constructor(file: string, problem: string) {
    super(
      `file '${file}': ${problem}.`,
      'Keep only apiextensions.k8s.io/v1 CustomResourceDefinitions in crds/, or prefix the file name with `doc-` or `_` to skip it.',
    );
    this.file = file;
  }
}

/** The field manager kaddon's server-side applies are recorded under. */
const FIELD_MANAGER = 'kaddon';
const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/**
 * ModuleEnsureCRDs (docs/lifecycle.md "Helm delivery"): applies `<module>/crds/*.yaml` before the release,
 * since the release is installed with --skip-crds. Server-side apply with force, so a CRD first created by
 * helm or kubectl is taken over. Returns the names of the CRDs applied.
 */
export async function applyCrds(
  crdsDir: string,
  options: ApplyCrdsOptions,
  api: Pick<KubeClient, 'request'>,
): Promise<string[]> {
  const applied: string[] = [];
  for (const file of await crdFiles(crdsDir, options.filterPrefixes)) {
    for (const crd of await readCrds(file)) {
      const name = withExtraLabels(crd, options.extraLabels);
      await api.request('PATCH', `${CRD_PATH}/${encodeURIComponent(name)}`, {
        query: { fieldManager: FIELD_MANAGER, force: true },
        body: crd,
        contentType: 'application/apply-patch+yaml',
      });
      applied.push(name);
    }
  }
  return applied;
}

/** The CRDs of a module's crds/ folder (files starting with a filtered prefix left out), checked. */
export async function moduleCrds(crdsDir: string, filterPrefixes: readonly string[]): Promise<JsonObject[]> {
  const crds: JsonObject[] = [];
  for (const file of await crdFiles(crdsDir, filterPrefixes)) crds.push(...(await readCrds(file)));
  return crds;
}

async function crdFiles(dir: string, filterPrefixes: readonly string[]): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.yaml'))
    .filter((entry) => !filterPrefixes.some((prefix) => prefix !== '' && entry.name.startsWith(prefix)))
    .map((entry) => path.join(dir, entry.name))
    .sort();
}

async function readCrds(file: string): Promise<JsonObject[]> {
  const documents = parseYamlDocuments(await readFile(file, 'utf8'), file);
  return documents.map(({ value, line }) => {
    const where = `${file}:${line}`;
    if (!isJsonObject(value) || value.kind !== 'CustomResourceDefinition')
      throw new CrdError(where, 'not a CustomResourceDefinition');
    if (value.apiVersion !== 'apiextensions.k8s.io/v1')
      throw new CrdError(
        where,
        `apiVersion '${scalarText(value.apiVersion)}' is not apiextensions.k8s.io/v1`,
      );
    if (!isJsonObject(value.metadata) || typeof value.metadata.name !== 'string')
      throw new CrdError(where, 'metadata.name is missing');
    return value;
  });
}

/** Adds the labels in place and returns the CRD's name (readCrds checked the metadata). */
function withExtraLabels(crd: JsonObject, extraLabels: Readonly<Record<string, string>>): string {
  const metadata = crd.metadata as JsonObject;
  metadata.labels = { ...(isJsonObject(metadata.labels) ? metadata.labels : {}), ...extraLabels };
  return metadata.name as string;
}
