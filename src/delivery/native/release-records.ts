import { isJsonObject, type JsonObject } from '../../core/json.ts';
import { KubeApiError, type KubeClient } from '../kube-client.ts';
import {
  labelsOf,
  MAX_RECORD_BYTES,
  readRecordSecret,
  ReleaseRecordError,
  type RecordRead,
} from './record-of-secret.ts';
import { releaseSecret, releaseSecretName, type ReleaseRecord } from './release-record.ts';

export type RecordsApi = Pick<KubeClient, 'request'>;

/**
 * The most the revisions of one release may unpack to in all (docs/delivery.md "Release
 * records"): HELM_HISTORY_MAX's default of ten revisions, each at the bound of one record.
 */
const MAX_HISTORY_BYTES = 10 * MAX_RECORD_BYTES;

/** The most a converge's list reads ahead, in all: past it, a delivery reads its own release. */
const MAX_PREFETCH_BYTES = 4 * MAX_RECORD_BYTES;

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

  /**
   * Every revision of the release, oldest first; empty when there is none. A record that cannot be
   * read or disagrees with its Secret fails the whole release (ReleaseRecordError): nothing is
   * written or deleted on the word of a history kaddon cannot trust.
   */
  async history(release: string, namespace: string): Promise<ReleaseRecord[]> {
    const secrets = await this.#list(namespace, `owner=helm,name=${release}`);
    const records: ReleaseRecord[] = [];
    let unpacked = 0;
    for (const secret of secrets) {
      const read = readRecordSecret(secret);
      if (read instanceof ReleaseRecordError) throw read;
      unpacked += read.unpacked;
      if (unpacked > MAX_HISTORY_BYTES) throw historyTooLarge(release, namespace, secrets.length);
      records.push(read.record);
    }
    records.sort((a, b) => a.version - b.version);
    const twice = records.find((record, i) => record.version === records[i + 1]?.version);
    if (twice) throw revisionTwice(twice, namespace);
    return records;
  }

  /**
   * The newest revision of each release in the namespace, from labels only: the list asks for
   * object metadata, so no release document is sent or unpacked. With `release`, that one only.
   * `named` gets the name of every release with a record, its revision label readable or not.
   */
  async heads(namespace: string, release?: string, named?: Set<string>): Promise<Map<string, ReleaseHead>> {
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
      if (name !== undefined) named?.add(name);
      if (name === undefined || !Number.isInteger(revision)) continue;
      const known = heads.get(name);
      if (known === undefined || revision > known.revision)
        heads.set(name, { name, revision, status: labels.status ?? 'unknown' });
    }
    return heads;
  }

  /**
   * The deployed revision of each release in the namespace, whole, in one list: what a converge
   * reads beside the heads so that each module's delivery need not ask for its release again. A
   * record that cannot be read, or a second deployed claim to a release, is left out: that
   * release's own read names the problem. Past MAX_PREFETCH_BYTES the rest are left out too.
   */
  async deployed(namespace: string): Promise<ReleaseRecord[]> {
    const secrets = await this.#list(namespace, 'owner=helm,status=deployed');
    const reads: RecordRead[] = [];
    let unpacked = 0;
    for (const secret of secrets) {
      const read = readRecordSecret(secret);
      if (read instanceof ReleaseRecordError) continue;
      unpacked += read.unpacked;
      if (unpacked > MAX_PREFETCH_BYTES) break;
      reads.push(read);
    }
    const claims = new Map<string, number>();
    for (const { record } of reads) claims.set(record.name, (claims.get(record.name) ?? 0) + 1);
    return reads.map(({ record }) => record).filter((record) => claims.get(record.name) === 1);
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

function historyTooLarge(release: string, namespace: string, count: number): ReleaseRecordError {
  const limit = `${String(MAX_HISTORY_BYTES / 1024 / 1024)} MiB`;
  return new ReleaseRecordError(
    `release '${release}'`,
    `its ${String(count)} records in namespace '${namespace}' unpack to more than ${limit} in all`,
    `kaddon upgrades and deletes nothing of it meanwhile. Delete its oldest revisions (kubectl get secret -n ${namespace} -l owner=helm,name=${release}), or lower HELM_HISTORY_MAX.`,
  );
}

function revisionTwice(record: ReleaseRecord, namespace: string): ReleaseRecordError {
  return new ReleaseRecordError(
    `release '${record.name}'`,
    `revision ${String(record.version)} is recorded twice in namespace '${namespace}'`,
    `kaddon upgrades and deletes nothing of it meanwhile. Delete the record helm did not write (kubectl get secret -n ${namespace} -l owner=helm,name=${record.name}).`,
  );
}
