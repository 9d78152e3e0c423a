import { isJsonObject, type JsonObject, type JsonValue } from '../../core/json.ts';
import type { FieldSpec, ImageEntry } from '../../core/kustomization.ts';
import type { Resource } from '../../core/resource.ts';
import { isFieldSpecFor, visitFieldPath } from '../field-path.ts';
import { compileGoRegExp } from '../select-resources.ts';

/** Rewrites one image reference; undefined when the entry does not match it. */
type ImageUpdate = (image: string) => string | undefined;

/** What may follow the entry's name: a tag, then a sha256 digest (api/internal/image IsImageMatched). */
const TAG_AND_DIGEST = '(:[a-zA-Z0-9_.{}-]*)?(@sha256:[a-zA-Z0-9_.{}-]*)?$';

/**
 * `images` entries in order (kustomize's api/filters and api/internal/builtins images). Each entry runs two
 * passes over every object but CustomResourceDefinitions: the legacy walk over any
 * `containers`/`initContainers` list at any depth, then the field specs; so a `tagSuffix` lands twice on the
 * standard pod-template paths.
 */
export function transformImages(
  resources: readonly Resource[],
  images: readonly ImageEntry[],
  fieldSpecs: readonly FieldSpec[],
): void {
  const candidates = resources.filter((resource) => resource.kind !== 'CustomResourceDefinition');
  // Entries change only image strings, so the containers the legacy walk finds are the same for all.
  const containers = candidates.map((resource) => findContainers(resource.obj, []));
  for (const image of images) {
    const update = imageUpdate(image);
    for (const list of containers) updateContainers(list, update);
    for (const resource of candidates) updateFieldSpecs(resource, fieldSpecs, update);
  }
}

/** The elements of every `containers`/`initContainers` list at any depth, in the legacy walk's order. */
function findContainers(node: JsonValue, found: JsonObject[]): JsonObject[] {
  if (Array.isArray(node)) {
    for (const item of node) findContainers(item, found);
    return found;
  }
  if (!isJsonObject(node)) return found;
  for (const key of Object.keys(node)) {
    const value = node[key] ?? null;
    findContainers(value, found);
    if ((key !== 'containers' && key !== 'initContainers') || !Array.isArray(value)) continue;
    for (const container of value) if (isJsonObject(container)) found.push(container);
  }
  return found;
}

function updateContainers(containers: readonly JsonObject[], update: ImageUpdate): void {
  for (const container of containers) {
    if (typeof container.image !== 'string') continue;
    const next = update(container.image);
    if (next !== undefined) container.image = next;
  }
}

/**
 * Never creates: kustomize's image filter gives no kind to create, so `create: true` in the table is moot.
 */
function updateFieldSpecs(resource: Resource, fieldSpecs: readonly FieldSpec[], update: ImageUpdate): void {
  for (const spec of fieldSpecs) {
    if (!isFieldSpecFor(spec, resource.id)) continue;
    visitFieldPath(resource.obj, spec.path, false, (value, set) => {
      const next = typeof value === 'string' ? update(value) : undefined;
      if (next !== undefined) set(next);
    });
  }
}

/**
 * The entry's name is used as a regex without escaping, as kustomize does (`app.io/x` also matches
 * `appXio/x`). A name that is no valid regex matches nothing.
 */
function imageUpdate(entry: ImageEntry): ImageUpdate {
  const pattern = compileGoRegExp(entry.name ?? '', { before: '^', after: TAG_AND_DIGEST });
  if (!pattern) return () => undefined;
  return (image) => (pattern.test(image) ? rewriteImage(image, entry) : undefined);
}

/** newName replaces the name; newTag and digest replace both tag and digest; tagSuffix extends the tag. */
function rewriteImage(image: string, entry: ImageEntry): string {
  const parts = splitImage(image);
  let { tag, digest } = parts;
  const name = entry.newName || parts.name;
  if (entry.newTag && entry.digest) {
    tag = entry.newTag;
    digest = entry.digest;
  } else if (entry.newTag) {
    tag = entry.newTag;
    digest = '';
  } else if (entry.digest) {
    tag = '';
    digest = entry.digest;
  } else if (entry.tagSuffix) {
    tag += entry.tagSuffix;
    digest = '';
  }
  return `${name}${tag ? `:${tag}` : ''}${digest ? `@${digest}` : ''}`;
}

/**
 * Splits `[host[:port]/]path[:tag][@digest]`. A `:` before the first `/` belongs to the registry
 * host, so only the part from the first `/` on is searched for the tag and digest separators.
 */
export function splitImage(image: string): { name: string; tag: string; digest: string } {
  const slash = image.indexOf('/');
  const offset = slash > 0 ? slash : 0;
  const rest = image.slice(offset);
  const at = rest.indexOf('@');
  const colon = rest.indexOf(':');
  if (at < 0 && colon < 0) return { name: image, tag: '', digest: '' };
  if (at >= 0 && (colon < 0 || at < colon)) {
    return { name: image.slice(0, offset + at), tag: '', digest: image.slice(offset + at + 1) };
  }
  const name = image.slice(0, offset + colon);
  if (at < 0) return { name, tag: image.slice(offset + colon + 1), digest: '' };
  return { name, tag: image.slice(offset + colon + 1, offset + at), digest: image.slice(offset + at + 1) };
}
