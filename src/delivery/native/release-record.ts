import { gzipSync } from 'node:zlib';
import type { JsonObject } from '../../core/json.ts';
import type { ReleaseState } from '../helm/helm-client.ts';

/** `info` of a release as helm stores it (helm's release/v1 Info). */
interface ReleaseInfo {
  readonly first_deployed: string;
  readonly last_deployed: string;
  readonly description: string;
  readonly status: ReleaseState;
  readonly deleted?: string;
}

/**
 * One revision of a release in helm's storage format (helm's release/v1 Release, JSON): what
 * `helm history`, `helm get` and `helm rollback` read (docs/delivery.md "Release records").
 */
export interface ReleaseRecord {
  readonly name: string;
  readonly info: ReleaseInfo;
  readonly chart: JsonObject;
  readonly config: JsonObject;
  readonly manifest: string;
  readonly version: number;
  readonly namespace: string;
  /** helm 4 records how the objects were applied: `ssa` (server-side apply) or `csa`. */
  readonly apply_method?: string;
}

/** The Secret type helm's `secret` storage driver writes. */
const RELEASE_SECRET_TYPE = 'helm.sh/release.v1';

export function releaseSecretName(release: string, version: number): string {
  return `sh.helm.release.v1.${release}.v${String(version)}`;
}

/**
 * The Secret helm 4.1.4 writes for a revision: labels name, owner=helm, status, version and
 * modifiedAt (Unix seconds), `data.release` = base64 (the Secret's) of base64 (helm's) of gzipped
 * JSON.
 */
export function releaseSecret(record: ReleaseRecord, modifiedAt: Date): JsonObject {
  const packed = gzipSync(Buffer.from(JSON.stringify(record), 'utf8')).toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: releaseSecretName(record.name, record.version),
      namespace: record.namespace,
      labels: {
        modifiedAt: String(Math.floor(modifiedAt.getTime() / 1000)),
        name: record.name,
        owner: 'helm',
        status: record.info.status,
        version: String(record.version),
      },
    },
    type: RELEASE_SECRET_TYPE,
    data: { release: Buffer.from(packed, 'latin1').toString('base64') },
  };
}

/** The record with a new state and description (helm's Release.SetStatus). */
export function withStatus(record: ReleaseRecord, status: ReleaseState, description: string): ReleaseRecord {
  return { ...record, info: { ...record.info, status, description } };
}
