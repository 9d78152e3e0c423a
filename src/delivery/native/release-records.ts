import { isJsonObject, type JsonObject } from '../../core/json.ts';
import { KubeApiError, type KubeClient } from '../kube-client.ts';
import { recordOfSecret, releaseSecret, releaseSecretName, type ReleaseRecord } from './release-record.ts';

export type RecordsApi = Pick<KubeClient, 'request'>;

/** A release's name, newest revision and state, read from the Secrets' labels alone. */
export interface ReleaseHead {
  readonly name: string;
  readonly revision: number;
  readonly status: string;
}

/**
 * Helm's `secret` storage driver, read and written through the API (docs/delivery.md "Release
 * records"): one Secret per revision in the release's namespace, labelled `owner=helm`.
 */
export class ReleaseRecords {
  readonly #api: RecordsApi;

  constructor(api: RecordsApi) {
    this.#api = api;
  }

  /** Every revision of the release, oldest first; empty when there is none. */
  async history(release: string, namespace: string): Promise<ReleaseRecord[]> {
    const secrets = await this.#list(namespace, `owner=helm,name=${release}`);
    return secrets
      .map((secret) => recordOfSecret(secret))
      .filter((record): record is ReleaseRecord => record !== undefined && record.name === release)
      .sort((a, b) => a.version - b.version);
  }

  /**
   * The newest revision of each release in the namespace, from labels only: the list asks for
   * object metadata, so no release document is sent or unpacked. With `release`, that one only.
   */
  async heads(namespace: string, release?: string): Promise<Map<string, ReleaseHead>> {
    const labelSelector = release === undefined ? 'owner=helm' : `owner=helm,name=${release}`;
    const list = await this.#api.request('GET', secretsPath(namespace), {
      query: { labelSelector },
      accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1',
    });
    const heads = new Map<string, ReleaseHead>();
    for (const item of Array.isArray(list.items) ? list.items.filter(isJsonObject) : []) {
      const labels = labelsOf(item);
      const name = labels.name;
      const revision = Number(labels.version);
      if (name === undefined || !Number.isInteger(revision)) continue;
      const known = heads.get(name);
      if (known === undefined || revision > known.revision)
        heads.set(name, { name, revision, status: labels.status ?? 'unknown' });
    }
    return heads;
  }

  /**
   * The deployed revision of each release in the namespace, whole, in one list: what a converge
   * reads beside the heads so that each module's delivery need not ask for its release again.
   */
  async deployed(namespace: string): Promise<ReleaseRecord[]> {
    const secrets = await this.#list(namespace, 'owner=helm,status=deployed');
    return secrets
      .map((secret) => recordOfSecret(secret))
      .filter((record): record is ReleaseRecord => record !== undefined);
  }

  /** Writes a new revision; fails when that revision exists (helm's pseudo-lock against a second writer). */
  async create(record: ReleaseRecord, modifiedAt: Date): Promise<void> {
    await this.#api.request('POST', secretsPath(record.namespace), {
      body: releaseSecret(record, modifiedAt),
    });
  }

  /** Replaces a revision's record, as helm's driver does on a state change. */
  async update(record: ReleaseRecord, modifiedAt: Date): Promise<void> {
    const path = `${secretsPath(record.namespace)}/${releaseSecretName(record.name, record.version)}`;
    await this.#api.request('PUT', path, { body: releaseSecret(record, modifiedAt) });
  }

  /** Removes a revision; one already gone is fine. */
  async remove(release: string, namespace: string, version: number): Promise<void> {
    try {
      await this.#api.request('DELETE', `${secretsPath(namespace)}/${releaseSecretName(release, version)}`);
    } catch (error: unknown) {
      if (!(error instanceof KubeApiError && error.status === 404)) throw error;
    }
  }

  async #list(namespace: string, labelSelector: string): Promise<JsonObject[]> {
    const list = await this.#api.request('GET', secretsPath(namespace), { query: { labelSelector } });
    return Array.isArray(list.items) ? list.items.filter(isJsonObject) : [];
  }
}

function secretsPath(namespace: string): string {
  return `/api/v1/namespaces/${encodeURIComponent(namespace)}/secrets`;
}

function labelsOf(item: JsonObject): Record<string, string | undefined> {
  const metadata = isJsonObject(item.metadata) ? item.metadata : {};
  return (isJsonObject(metadata.labels) ? metadata.labels : {}) as Record<string, string | undefined>;
}
