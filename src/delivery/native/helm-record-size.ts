import { gzipSync } from 'node:zlib';
import { NativeDeliveryError } from './apply-release-objects.ts';
import type { ReleaseRecord } from './release-record.ts';

/** The most data the API server lets a Secret hold (Kubernetes' MaxSecretSize): 1 MiB. */
export const SECRET_DATA_LIMIT = 1024 * 1024;

/**
 * helm packs a record with Go's gzip at BestCompression, which was measured at most about 1% larger
 * than zlib's default level on the same JSON (YAML, JSON, source text, PEM and random data); the
 * estimate allows three times that (docs/delivery.md "What the native engine does": Size).
 */
const GO_GZIP_MARGIN = 1.03;

/** The characters Go's encoding/json writes as `\u` escapes where JSON.stringify writes them as they are. */
const GO_JSON_ESCAPED = /[<>&\u2028\u2029]/gu;

/**
 * The length of `data.release` in the Secret helm would write for this record: base64 of the
 * gzipped JSON helm marshals (the chart with its templates and files, the values, the manifest),
 * the Secret's own base64 taken off again, as the API server counts it.
 */
export function helmRecordSize(record: ReleaseRecord): number {
  const json = JSON.stringify(record).replace(
    GO_JSON_ESCAPED,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  const gzipped = Math.ceil(gzipSync(Buffer.from(json, 'utf8')).length * GO_GZIP_MARGIN);
  return 4 * Math.ceil(gzipped / 3);
}

/**
 * Refuses a record helm's storage could not hold, so that whatever the native engine writes, helm
 * can write too when it takes the release over (`helm rollback`, `helm upgrade`).
 */
export function assertHelmCanStore(record: ReleaseRecord): void {
  const size = helmRecordSize(record);
  if (size <= SECRET_DATA_LIMIT) return;
  throw new NativeDeliveryError(
    record.name,
    `revision ${String(record.version)} would take about ${String(size)} bytes in helm's release Secret, over the ${String(SECRET_DATA_LIMIT)} bytes the API server lets a Secret hold, so helm could not store it either; make the module's slice smaller (move large data out of its manifests, or split the module)`,
  );
}
