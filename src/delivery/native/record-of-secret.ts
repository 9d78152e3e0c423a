import { gunzipSync } from 'node:zlib';
import { KaddonError } from '../../core/errors.ts';
import { isJsonObject, MAX_JSON_DEPTH, type JsonObject, type JsonValue } from '../../core/json.ts';
import type { ReleaseState } from '../helm/helm-client.ts';
import { releaseSecretName, type ReleaseRecord } from './release-record.ts';

/**
 * The most one record may unpack to (docs/delivery.md "Release records"): a Secret holds at most
 * 1 MiB, 768 KiB of gzip once helm's base64 is undone, and a release's YAML packs about ten to
 * one, so a record helm stores for a real chart unpacks to at most about 8 MiB; gzip packs up to a
 * thousand to one, which this cuts at 8 MiB.
 */
export const MAX_RECORD_BYTES = 8 * 1024 * 1024;

/** The most `data.release` may hold: a Secret's data is at most 1 MiB, 1.4 MiB as base64. */
const MAX_SECRET_CHARS = 2 * 1024 * 1024;

const STATES: readonly ReleaseState[] = [
  'unknown',
  'deployed',
  'uninstalled',
  'superseded',
  'failed',
  'uninstalling',
  'pending-install',
  'pending-upgrade',
  'pending-rollback',
];

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * A record kaddon cannot take at its word (docs/delivery.md "Release records"): its release is
 * neither written nor deleted while it is there; the other releases go on. The repair is part of
 * the message, which is what the operator's log and its module's status show.
 */
export class ReleaseRecordError extends KaddonError {
  readonly code = 'release-record-invalid';
  constructor(subject: string, problem: string, repair: string) {
    super(`${subject}: ${problem}. ${repair}`, '');
  }
}

/** A release record Secret, as kubectl names it. */
interface SecretRef {
  readonly namespace: string;
  readonly name: string;
}

/** The error for one Secret: names it, says what is wrong and how to repair. */
function badRecord(secret: SecretRef, problem: string, release?: string): ReleaseRecordError {
  const whose = release === undefined ? 'its release' : `release '${release}'`;
  return new ReleaseRecordError(
    `release record '${secret.namespace}/${secret.name}'`,
    problem,
    `kaddon upgrades and deletes nothing of ${whose} while this record is there. If helm did not ` +
      `write it, delete it (kubectl delete secret -n ${secret.namespace} ${secret.name}); ` +
      'otherwise restore it from a backup. The next converge reads the release again.',
  );
}

/** A record read from its Secret, and how large it was once unpacked. */
export interface RecordRead {
  readonly record: ReleaseRecord;
  readonly unpacked: number;
}

/**
 * The revision a Secret holds, decoded as input: bounded sizes, each field the engines read checked,
 * and its labels and name held to its content (docs/delivery.md "Release records"). A record that
 * fails is a ReleaseRecordError naming the Secret, never echoing its bytes.
 */
export function readRecordSecret(secret: JsonObject): RecordRead | ReleaseRecordError {
  try {
    return decodeRecordSecret(secret);
  } catch (error: unknown) {
    if (error instanceof ReleaseRecordError) return error;
    throw error;
  }
}

/** The revision a Secret holds; throws the ReleaseRecordError readRecordSecret returns. */
export function recordOfSecret(secret: JsonObject): ReleaseRecord {
  const read = readRecordSecret(secret);
  if (read instanceof ReleaseRecordError) throw read;
  return read.record;
}

function decodeRecordSecret(secret: JsonObject): RecordRead {
  const ref = secretRef(secret);
  const labels = labelsOf(secret);
  const data = isJsonObject(secret.data) ? secret.data : {};
  const fail = (problem: string): ReleaseRecordError => badRecord(ref, problem, labels.name);
  if (typeof data.release !== 'string') throw fail('it has no data.release');
  if (data.release.length > MAX_SECRET_CHARS) throw fail('data.release is larger than a Secret may be');
  const packed = unpackRelease(data.release, fail);
  if (nestsDeeper(packed, MAX_JSON_DEPTH))
    throw fail(`its release document nests deeper than ${String(MAX_JSON_DEPTH)} levels`);
  let parsed: JsonValue;
  try {
    parsed = JSON.parse(packed.toString('utf8')) as JsonValue;
  } catch {
    // The parser's message quotes the document: only say that it is not JSON.
    throw fail('its release document is not JSON');
  }
  const record = checkedRecord(parsed, fail);
  checkLabels(record, ref, labels, fail);
  return { record, unpacked: packed.length };
}

/** base64 (the Secret's) of base64 (helm's) of gzip, or of plain JSON as helm also reads. */
function unpackRelease(text: string, fail: (problem: string) => ReleaseRecordError): Buffer {
  const inner = Buffer.from(text, 'base64').toString('latin1');
  if (!BASE64.test(inner) || inner.length % 4 !== 0)
    throw fail("data.release is not base64 of base64: helm's storage encoding");
  const packed = Buffer.from(inner, 'base64');
  if (packed[0] !== 0x1f || packed[1] !== 0x8b) return packed;
  try {
    return gunzipSync(packed, { maxOutputLength: MAX_RECORD_BYTES });
  } catch (error: unknown) {
    if (error instanceof RangeError)
      throw fail(`it unpacks to more than ${String(MAX_RECORD_BYTES / 1024 / 1024)} MiB`);
    throw fail('its gzip data is broken');
  }
}

/** Whether JSON text nests deeper than `max` brackets, read byte by byte without parsing it. */
function nestsDeeper(json: Buffer, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const byte = json[i];
    if (inString) {
      if (byte === 0x5c) i++;
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x7b || byte === 0x5b) {
      if (++depth > max) return true;
    } else if (byte === 0x7d || byte === 0x5d) depth--;
  }
  return false;
}

/** The fields the engines read, each of its type; helm leaves empty ones out (`omitempty`). */
function checkedRecord(value: JsonValue, fail: (problem: string) => ReleaseRecordError): ReleaseRecord {
  if (!isJsonObject(value)) throw fail('its release document is not an object');
  const { name, version, namespace, info, chart, config, manifest, hooks } = value;
  if (typeof name !== 'string' || name === '') throw fail('name is not a non-empty string');
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 1)
    throw fail('version is not a positive integer');
  if (typeof namespace !== 'string') throw fail('namespace is not a string');
  if (!isJsonObject(info)) throw fail('info is not an object');
  if (typeof info.status !== 'string' || !STATES.includes(info.status as ReleaseState))
    throw fail(`info.status is not one of ${STATES.join(', ')}`);
  for (const field of ['first_deployed', 'last_deployed', 'description', 'deleted'])
    if (info[field] !== undefined && typeof info[field] !== 'string')
      throw fail(`info.${field} is not a string`);
  if (!isAbsentOr(chart, isJsonObject)) throw fail('chart is not an object');
  if (!isAbsentOr(config, isJsonObject)) throw fail('config is not an object');
  if (!isAbsentOr(manifest, (field) => typeof field === 'string')) throw fail('manifest is not a string');
  if (!isAbsentOr(hooks, Array.isArray)) throw fail('hooks is not a list');
  if (!isAbsentOr(value.apply_method, (field) => typeof field === 'string'))
    throw fail('apply_method is not a string');
  return {
    ...(value as unknown as ReleaseRecord),
    info: { ...(info as unknown as ReleaseRecord['info']), description: stringOr(info.description) },
    chart: isJsonObject(chart) ? chart : {},
    config: isJsonObject(config) ? config : {},
    manifest: stringOr(manifest),
  };
}

/**
 * helm names a record's Secret after its release and revision and labels it with them and its
 * state: a record that says otherwise is not helm's word on the release (a second claim to a
 * revision, or a copy under another name).
 */
function checkLabels(
  record: ReleaseRecord,
  ref: SecretRef,
  labels: Readonly<Record<string, string | undefined>>,
  fail: (problem: string) => ReleaseRecordError,
): void {
  const revision = `revision ${String(record.version)} of release '${record.name}'`;
  if (labels.name !== record.name || labels.version !== String(record.version))
    throw fail(
      `its labels say revision ${labels.version ?? '(none)'} of release '${labels.name ?? '(none)'}', its content ${revision}`,
    );
  if (ref.name !== releaseSecretName(record.name, record.version))
    throw fail(
      `it holds ${revision}, which helm stores as ${releaseSecretName(record.name, record.version)}`,
    );
  if (record.namespace !== ref.namespace) throw fail(`it holds a release of namespace '${record.namespace}'`);
  if (labels.status !== record.info.status)
    throw fail(`its status label says ${labels.status ?? '(none)'}, its content ${record.info.status}`);
}

function isAbsentOr(value: JsonValue | undefined, is: (value: JsonValue) => boolean): boolean {
  return value === undefined || value === null || is(value);
}

function stringOr(value: JsonValue | undefined): string {
  return typeof value === 'string' ? value : '';
}

function secretRef(secret: JsonObject): SecretRef {
  const metadata = isJsonObject(secret.metadata) ? secret.metadata : {};
  return {
    namespace: typeof metadata.namespace === 'string' ? metadata.namespace : '',
    name: typeof metadata.name === 'string' ? metadata.name : '',
  };
}

export function labelsOf(item: JsonObject): Record<string, string | undefined> {
  const metadata = isJsonObject(item.metadata) ? item.metadata : {};
  const labels = isJsonObject(metadata.labels) ? metadata.labels : {};
  const out: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(labels)) if (typeof value === 'string') out[key] = value;
  return out;
}
