import { KustomizeError } from '../core/errors.ts';
import { formatId, type ResId } from '../core/res-id.ts';
import type { GeneratorBehavior, Resource } from '../core/resource.ts';
import { mergeGenerated } from './generators/merge-generated.ts';
import { ResourceIdIndex } from './resource-id-index.ts';
import {
  absorbTransformerConfig,
  builtinTransformerConfig,
  type TransformerConfig,
} from './transformer-config.ts';

/**
 * A `vars` entry bound to the object it names, when exactly one object matched (kustomize's
 * api/internal/accumulator/refvar.go).
 */
export interface DeclaredVar {
  readonly name: string;
  /** The declaring kustomization file, for messages. */
  readonly file: string;
  readonly objref: ResId;
  readonly fieldPath: string;
  /** The bound object's id when it was declared; undefined when nothing in scope matched. */
  readonly target: ResId | undefined;
}

/**
 * The resources of one build in accumulation order, with the transformer configuration and vars
 * gathered so far. Components transform the accumulator they are given; a Kustomization directory
 * is built in a fresh one and then merged in.
 */
export class ResourceAccumulator {
  readonly #resources: Resource[] = [];
  /** Built at first use after the resources were last handed out; see `resources`. */
  #index: ResourceIdIndex | undefined;
  config: TransformerConfig = builtinTransformerConfig();
  readonly vars: DeclaredVar[] = [];

  /**
   * The resources in accumulation order. Whoever takes them may rename them in place (transformers
   * do), so taking them drops the id index; it is rebuilt when next needed.
   */
  get resources(): readonly Resource[] {
    this.#index = undefined;
    return this.#resources;
  }

  #idIndex(): ResourceIdIndex {
    this.#index ??= new ResourceIdIndex(this.#resources);
    return this.#index;
  }

  /** Adds a resource; its id must be new (`may not add resource with an already registered id`). */
  append(resource: Resource, file: string): void {
    const index = this.#idIndex();
    const clash = index.withCurrentId(resource.id);
    if (clash) {
      throw new KustomizeError(
        'duplicate-id',
        file,
        `may not add resource with an already registered id: ${formatId(resource.id)} (from ${resource.source}; already added from ${clash.source})`,
        'Each object may be added once: remove one of them, or rename one (namePrefix, nameSuffix) in its own kustomization before combining.',
      );
    }
    this.#resources.push(resource);
    index.add(resource);
  }

  /** Adds everything another accumulator built, with its configuration and vars. */
  absorbAccumulator(other: ResourceAccumulator, file: string): void {
    for (const resource of other.resources) this.append(resource, file);
    this.config = absorbTransformerConfig(this.config, other.config);
    for (const declared of other.vars) this.declareVar(declared);
  }

  /** Adds a generated object honouring its behavior (kustomize's api/resmap/reswrangler.go). */
  absorbGenerated(generated: Resource, behavior: GeneratorBehavior, file: string): void {
    const matches = this.#idIndex().withAnyId(generated.id);
    const [match] = matches;
    if (matches.length > 1) {
      throw new KustomizeError(
        'generator-invalid',
        file,
        `found multiple objects that could accept merge of ${formatId(generated.id)}`,
        'Give the generator a namespace so it names exactly one object.',
      );
    }
    if (match === undefined) {
      if (behavior !== 'create') {
        throw new KustomizeError(
          'generator-invalid',
          file,
          `id ${formatId(generated.id)} does not exist; cannot merge or replace`,
          `Set behavior: create, or add ${generated.kind} '${generated.name}' before this generator runs.`,
        );
      }
      this.append(generated, file);
      return;
    }
    if (behavior === 'create') {
      throw new KustomizeError(
        'generator-invalid',
        file,
        `id ${formatId(generated.id)} exists; behavior must be merge or replace`,
        `Set behavior: merge or behavior: replace on the generator of ${generated.kind} '${generated.name}'.`,
      );
    }
    this.replace(match, mergeGenerated(match, generated, behavior));
  }

  /** Puts `next` where `previous` stands. */
  replace(previous: Resource, next: Resource): void {
    const position = this.#resources.indexOf(previous);
    if (position < 0) return;
    this.#resources[position] = next;
    if (this.#index?.replace(previous, next) === false) this.#index = undefined;
  }

  remove(resource: Resource): void {
    const position = this.#resources.indexOf(resource);
    if (position < 0) return;
    this.#resources.splice(position, 1);
    this.#index = undefined;
  }

  declareVar(declared: DeclaredVar): void {
    if (this.vars.some((existing) => existing.name === declared.name)) {
      throw new KustomizeError(
        'var-invalid',
        declared.file,
        `var '${declared.name}' already encountered`,
        'Var names must be unique across the whole build: rename one of them.',
      );
    }
    this.vars.push(declared);
  }

  /** Checks no two resources share an id, after a transformer that may rename (namespace). */
  checkUniqueIds(file: string, transformer: string): void {
    const seen = new Map<string, Resource>();
    for (const resource of this.#resources) {
      const key = resource.idKey;
      const other = seen.get(key);
      if (other) {
        throw new KustomizeError(
          'duplicate-id',
          file,
          `${transformer} transformation produces ID conflict: ${formatId(resource.id)} (from ${other.source} and ${resource.source})`,
          'Two objects end up with the same kind, name and namespace: rename one of them.',
        );
      }
      seen.set(key, resource);
    }
  }
}
