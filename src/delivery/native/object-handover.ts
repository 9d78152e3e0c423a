import { isJsonObject, type JsonObject } from '../../core/json.ts';
import { idOf, isClusterScoped } from '../../core/res-id.ts';
import { parseYamlDocuments } from '../../core/yaml/yaml.ts';
import type { ReleaseRecord } from './release-record.ts';

/**
 * Says whether an object a release no longer holds is now held by another release of the same
 * tree (docs/delivery.md "Objects moving between modules"): such an object is handed over, never
 * deleted.
 */
export type HandedOver = (object: JsonObject) => boolean;

/**
 * How objects of releases stored in one namespace are matched: group, kind, name and namespace (a
 * namespaced object without one is in the release namespace, where helm puts it). The version is
 * left out: one object may be written under two versions of its kind.
 */
export function handoverKey(object: JsonObject, releaseNamespace: string): string {
  const id = idOf(object);
  const namespace = isClusterScoped(id) ? '' : id.namespace === '' ? releaseNamespace : id.namespace;
  return `${id.group}\u0001${id.kind}\u0001${namespace}\u0001${id.name}`;
}

/**
 * The record without the documents of the objects `handedOver` names, and how many it dropped:
 * what a release upgraded from it then still holds, so that neither helm nor the native engine
 * deletes an object another release now holds. The documents kept are left as stored.
 */
export function withoutHandedOver(
  record: ReleaseRecord,
  handedOver: HandedOver,
): { readonly record: ReleaseRecord; readonly dropped: number } {
  const where = `release ${record.name} revision ${String(record.version)}`;
  let dropped = 0;
  const kept = splitStoredManifest(record.manifest).filter((document) => {
    const [parsed] = parseYamlDocuments(document, where);
    const object = parsed?.value;
    if (!isJsonObject(object) || !handedOver(object)) return true;
    dropped++;
    return false;
  });
  if (dropped === 0) return { record, dropped };
  return { record: { ...record, manifest: kept.map((document) => `---${document}`).join('') }, dropped };
}

/** A stored manifest (`---\n# Source: …\n<object>\n` each) cut into its documents, `---` left out. */
function splitStoredManifest(manifest: string): string[] {
  return manifest.split(/^---(?=[ \t]*(?:\n|$))/m).filter((document) => document.trim() !== '');
}
