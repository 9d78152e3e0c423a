import { deepClone, ensureMap, isJsonObject, type JsonObject } from './json.ts';
import { idKey, idOf, isSameId, type ResId } from './res-id.ts';

/** An id with the raw fields it was read from; it holds while those fields are unchanged. */
interface CachedId {
  readonly apiVersion: unknown;
  readonly kind: unknown;
  readonly name: unknown;
  readonly namespace: unknown;
  readonly id: ResId;
  key: string | undefined;
}

/**
 * How a generated ConfigMap or Secret is absorbed into what is already accumulated (kustomize's
 * api/resmap/reswrangler.go).
 */
export type GeneratorBehavior = 'create' | 'merge' | 'replace';

/**
 * One Kubernetes object being built, with what kustomize remembers about it beside the object:
 * the ids it had before transformers renamed it, the prefixes and suffixes it received, whether it
 * is a generated object that gets a content hash, and (in a modules tree) the module that owns it.
 */
/**
 * Where an object came from or what configured a transformer, as kustomize's origin annotations say
 * it: a resource file's path, or the file that configured a generator or transformer and which one.
 * Paths are display paths here; the build writes them relative to the kustomization it built.
 */
export type ResourceOrigin =
  | { readonly path: string }
  | {
      readonly configuredIn: string;
      readonly configuredBy: {
        readonly apiVersion: string;
        readonly kind: string;
        readonly name?: string;
        readonly namespace?: string;
      };
    };

export class Resource {
  obj: JsonObject;
  /** Where the object came from, for messages: a file path, or a generator's description. */
  readonly source: string;
  /** Ids the object had before, oldest first; the first one is its original id. */
  previousIds: ResId[] = [];
  namePrefixes: string[] = [];
  nameSuffixes: string[] = [];
  /** Set on generated ConfigMaps and Secrets that get a content-hash name suffix at the end. */
  needsHashSuffix = false;
  /** The module that added the object; unset outside a modules tree. */
  owner: string | undefined;
  /** The file or generator the object came from (kustomize's buildMetadata originAnnotations). */
  origin: ResourceOrigin | undefined;
  /** The transformers that processed the object, in order (buildMetadata transformerAnnotations). */
  transformations: ResourceOrigin[] = [];

  /**
   * Transformers edit `obj` in place through field specs and patches, so the cache is checked
   * against the object's identity fields on every read instead of being invalidated by writers.
   */
  #cachedId: CachedId | undefined;

  constructor(obj: JsonObject, source: string) {
    this.obj = obj;
    this.source = source;
  }

  /** The current id, read from the object; the same value while its identity fields are unchanged. */
  get id(): ResId {
    return this.#currentId().id;
  }

  /** `idKey(this.id)`: equal for exactly the resources whose current ids are the same. */
  get idKey(): string {
    const cached = this.#currentId();
    return (cached.key ??= idKey(cached.id));
  }

  get kind(): string {
    return this.id.kind;
  }

  get name(): string {
    return this.id.name;
  }

  get namespace(): string {
    return this.id.namespace;
  }

  /** The id the object had when it entered the build. */
  get originalId(): ResId {
    return this.previousIds[0] ?? this.id;
  }

  /** True when the current or any previous id equals `id`. */
  hasAnyId(id: ResId): boolean {
    return isSameId(this.id, id) || this.previousIds.some((previous) => isSameId(previous, id));
  }

  /** Every name the object has had, oldest first, then the current one. */
  allNames(): string[] {
    return [...this.previousIds.map((id) => id.name), this.name];
  }

  metadata(): JsonObject {
    return ensureMap(this.obj, ['metadata']);
  }

  labels(): Readonly<Record<string, string>> {
    return stringMap(this.obj.metadata, 'labels');
  }

  annotations(): Readonly<Record<string, string>> {
    return stringMap(this.obj.metadata, 'annotations');
  }

  setName(name: string): void {
    if (name === this.name) return;
    this.rememberId();
    this.metadata().name = name;
  }

  setNamespace(namespace: string): void {
    if (namespace === this.namespace) return;
    this.rememberId();
    this.metadata().namespace = namespace;
  }

  /** Records the current id as a previous one; call before an edit that may change the id. */
  rememberId(): void {
    this.previousIds.push(this.id);
  }

  #currentId(): CachedId {
    const { apiVersion, kind, metadata } = this.obj;
    const name = isJsonObject(metadata) ? metadata.name : undefined;
    const namespace = isJsonObject(metadata) ? metadata.namespace : undefined;
    const cached = this.#cachedId;
    if (
      cached !== undefined &&
      cached.apiVersion === apiVersion &&
      cached.kind === kind &&
      cached.name === name &&
      cached.namespace === namespace
    ) {
      return cached;
    }
    this.#cachedId = { apiVersion, kind, name, namespace, id: idOf(this.obj), key: undefined };
    return this.#cachedId;
  }

  /** A copy that shares nothing mutable with this one. */
  clone(obj: JsonObject = deepClone(this.obj)): Resource {
    const copy = new Resource(obj, this.source);
    copy.previousIds = [...this.previousIds];
    copy.namePrefixes = [...this.namePrefixes];
    copy.nameSuffixes = [...this.nameSuffixes];
    copy.needsHashSuffix = this.needsHashSuffix;
    copy.owner = this.owner;
    copy.origin = this.origin;
    copy.transformations = [...this.transformations];
    return copy;
  }
}

function stringMap(metadata: unknown, key: string): Record<string, string> {
  const map = isJsonObject(metadata) ? metadata[key] : undefined;
  const out: Record<string, string> = {};
  if (!isJsonObject(map)) return out;
  for (const [k, v] of Object.entries(map)) {
    if (typeof v === 'string') out[k] = v;
    else if (v !== null && typeof v !== 'object') out[k] = String(v);
  }
  return out;
}
