import { deepEqual, type JsonObject } from '../../core/json.ts';
import { objectLabel, yamlPatch } from '../../core/module-diff.ts';
import { isSecret, maskSecrets } from '../../core/object-drift.ts';
import { idKey, idOf } from '../../core/res-id.ts';
import { manifestObjects } from '../native/release-manifest.ts';
import type { ReleaseRecord } from '../native/release-record.ts';

/** The revisions' parts a comparison reads: the stored manifest and the release values. */
type ComparedRevision = Pick<ReleaseRecord, 'name' | 'version' | 'manifest' | 'config'>;

/**
 * What changed from one revision of a release to another (docs/ui.md "Releases"), as unified diffs
 * of YAML: the release values (kaddon's checksum and the hooks' values patches, docs/drift.md
 * "What diff compares"), then each object created, changed or deleted. A Secret's values never
 * appear: they read `***`, and a changed one `*** (before)` / `*** (after)`, as in `kaddon diff`.
 * Empty when the two revisions hold the same.
 */
export function revisionDiff(from: ComparedRevision, to: ComparedRevision): string {
  const label = (record: ComparedRevision): string => `revision ${String(record.version)}`;
  const out: string[] = [];
  if (!deepEqual(from.config, to.config))
    out.push(
      '~ release values changed',
      yamlPatch(`${label(from)} values`, `${label(to)} values`, from.config, to.config),
    );
  const before = objectsById(from);
  const after = objectsById(to);
  const keys = [...new Set([...before.keys(), ...after.keys()])].sort();
  for (const key of keys) {
    const old = before.get(key);
    const now = after.get(key);
    if (old !== undefined && now !== undefined && deepEqual(old.object, now.object)) continue;
    const name = (old ?? now)?.name ?? key;
    const [maskedOld, maskedNow] = masked(old?.object, now?.object);
    const sign = old === undefined ? '+' : now === undefined ? '-' : '~';
    const verb = old === undefined ? 'created' : now === undefined ? 'deleted' : 'changed';
    out.push(
      `${sign} ${name} ${verb}`,
      yamlPatch(`${label(from)} ${name}`, `${label(to)} ${name}`, maskedOld, maskedNow),
    );
  }
  return out.join('\n');
}

function objectsById(record: ComparedRevision): Map<string, { name: string; object: JsonObject }> {
  const objects = new Map<string, { name: string; object: JsonObject }>();
  for (const object of manifestObjects(
    record.manifest,
    `release ${record.name} revision ${String(record.version)}`,
  )) {
    const id = idOf(object);
    objects.set(idKey(id), {
      name: objectLabel(id),
      object,
    });
  }
  return objects;
}

function masked(
  before: JsonObject | undefined,
  after: JsonObject | undefined,
): [JsonObject | undefined, JsonObject | undefined] {
  if (after !== undefined && isSecret(after)) return maskSecrets(before, after);
  if (before !== undefined && isSecret(before)) return [maskSecrets(undefined, before)[1], after];
  return [before, after];
}
