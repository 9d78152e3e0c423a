import { gunzipSync } from 'node:zlib';
import { isJsonObject, type JsonObject } from '../../core/json.ts';
import { parseYamlDocuments } from '../../core/yaml/yaml.ts';
import type { KubeClient } from '../kube-client.ts';

/** A release as helm's Secret storage holds it: its newest revision's state and objects. */
export interface StoredRelease {
  readonly name: string;
  readonly revision: number;
  readonly status: string;
  readonly objects: readonly JsonObject[];
  /** The values the revision was installed with (`helm get values`). */
  readonly values: JsonObject;
}

/** The most a stored release may hold once unpacked; helm itself refuses releases over 1 MiB packed. */
const MAX_RELEASE_BYTES = 64 * 1024 * 1024;

/**
 * Reads helm's release storage (the default `secret` driver: Secrets labelled `owner=helm`, one per
 * revision, docs/drift.md "What diff compares") without running helm: the newest revision of each
 * release in the namespace, or of the one named.
 */
export async function readStoredReleases(
  api: Pick<KubeClient, 'request'>,
  namespace: string,
  name?: string,
): Promise<Map<string, StoredRelease>> {
  const selector = name === undefined ? 'owner=helm' : `owner=helm,name=${name}`;
  const list = await api.request('GET', `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets`, {
    query: { labelSelector: selector },
  });
  const newest = new Map<string, JsonObject>();
  for (const secret of Array.isArray(list.items) ? list.items.filter(isJsonObject) : []) {
    const labels = labelsOf(secret);
    const release = labels.name;
    if (release === undefined) continue;
    const current = newest.get(release);
    if (current === undefined || Number(labels.version) > Number(labelsOf(current).version))
      newest.set(release, secret);
  }
  const releases = new Map<string, StoredRelease>();
  for (const [release, secret] of newest) {
    const labels = labelsOf(secret);
    releases.set(release, {
      name: release,
      revision: Number(labels.version),
      status: labels.status ?? 'unknown',
      ...releaseContent(secret, release),
    });
  }
  return releases;
}

function labelsOf(secret: JsonObject): Record<string, string | undefined> {
  const metadata = isJsonObject(secret.metadata) ? secret.metadata : {};
  return (isJsonObject(metadata.labels) ? metadata.labels : {}) as Record<string, string | undefined>;
}

/** `data.release` is base64 (the Secret) of base64 (helm) of a gzipped JSON release. */
function releaseContent(secret: JsonObject, release: string): { objects: JsonObject[]; values: JsonObject } {
  const data = isJsonObject(secret.data) ? secret.data : {};
  if (typeof data.release !== 'string') return { objects: [], values: {} };
  const packed = Buffer.from(Buffer.from(data.release, 'base64').toString('latin1'), 'base64');
  const unpacked =
    packed[0] === 0x1f && packed[1] === 0x8b
      ? gunzipSync(packed, { maxOutputLength: MAX_RELEASE_BYTES })
      : packed;
  const parsed: unknown = JSON.parse(unpacked.toString('utf8'));
  const manifest = isJsonObject(parsed) && typeof parsed.manifest === 'string' ? parsed.manifest : '';
  const objects = parseYamlDocuments(manifest, `release ${release}`)
    .map((document) => document.value)
    .filter(isJsonObject);
  return { objects, values: isJsonObject(parsed) && isJsonObject(parsed.config) ? parsed.config : {} };
}
