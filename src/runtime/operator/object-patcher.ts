import { sleep, systemClock, type Clock } from '../../core/clock.ts';
import { errorMessage, KaddonError } from '../../core/errors.ts';
import { isJsonObject } from '../../core/json.ts';
import { KubeApiError, resourcePath, type ApiResource, type KubeClient } from '../../delivery/kube-client.ts';
import {
  parseObjectPatches,
  type CreateOperation,
  type DeleteOperation,
  type ObjectPatchOperation,
  type ObjectReference,
  type PatchOperation,
} from '../../hooks/object-patch.ts';
import type { JqEngine } from '../../jq/jq-engine.ts';
import { ResourceResolver } from '../kube-monitors/resolve-resource.ts';

/** One or more operations of a hook's $KUBERNETES_PATCH_PATH that the API server refused. */
export class ObjectPatchFailedError extends KaddonError {
  readonly code = 'object-patch-failed';
  constructor(hook: string, failures: readonly string[]) {
    super(
      `hook '${hook}': $KUBERNETES_PATCH_PATH: ${failures.join('; ')}.`,
      "Fix the operations the hook writes, or grant the operator's service account what they need.",
    );
  }
}

export interface ObjectPatcherOptions {
  /** How long a foreground `Delete` waits for the object to be gone; 20 s as shell-operator. */
  readonly foregroundWaitMs?: number;
  /** Between two looks while it waits; 1 s. */
  readonly pollMs?: number;
  /** Times that wait; the system clock unless a test brings its own. */
  readonly clock?: Clock;
}

/** Conflicts (409 on update) are retried this many times with a fresh read, as client-go's RetryOnConflict. */
const CONFLICT_RETRIES = 5;

const PROPAGATION: Readonly<Record<DeleteOperation['operation'], string>> = {
  Delete: 'Foreground',
  DeleteInBackground: 'Background',
  DeleteNonCascading: 'Orphan',
};

/**
 * Applies the object operations a hook wrote (docs/hooks.md "Objects from hooks"), in order. Every
 * operation is tried; the ones that fail are reported together, so one refused operation does not
 * hide the others.
 */
export class ObjectPatcher {
  readonly #api: Pick<KubeClient, 'request'>;
  readonly #resolver: ResourceResolver;
  readonly #jq: JqEngine;
  readonly #foregroundWaitMs: number;
  readonly #pollMs: number;
  readonly #clock: Clock;

  constructor(api: Pick<KubeClient, 'request'>, jq: JqEngine, options: ObjectPatcherOptions = {}) {
    this.#api = api;
    this.#resolver = new ResourceResolver(api);
    this.#jq = jq;
    this.#foregroundWaitMs = options.foregroundWaitMs ?? 20_000;
    this.#pollMs = options.pollMs ?? 1000;
    this.#clock = options.clock ?? systemClock;
  }

  /** Parses and applies `text`; throws ObjectPatchError (bad file) or ObjectPatchFailedError. */
  async apply(hook: string, text: string): Promise<void> {
    const operations = parseObjectPatches(text, hook);
    const failures: string[] = [];
    for (const [index, operation] of operations.entries()) {
      try {
        await this.#applyOne(operation);
      } catch (error: unknown) {
        failures.push(
          `operation #${String(index + 1)} ${operation.operation} ${describe(operation)}: ${errorMessage(error)}`,
        );
      }
    }
    if (failures.length > 0) throw new ObjectPatchFailedError(hook, failures);
  }

  async #applyOne(operation: ObjectPatchOperation): Promise<void> {
    switch (operation.operation) {
      case 'Create':
      case 'CreateOrUpdate':
      case 'CreateIfNotExists':
        return this.#create(operation);
      case 'Delete':
      case 'DeleteInBackground':
      case 'DeleteNonCascading':
        return this.#delete(operation);
      default:
        return this.#patch(operation);
    }
  }

  async #create(operation: CreateOperation): Promise<void> {
    const { object, target: ref } = operation;
    const resource = await this.#resource(ref);
    const collection = resourcePath(resource, ref.namespace);
    const path = operation.subresource
      ? `${resourcePath(resource, ref.namespace, ref.name)}/${operation.subresource}`
      : collection;
    try {
      await this.#api.request('POST', path, { body: object });
      return;
    } catch (error: unknown) {
      if (!isStatus(error, 409) || operation.operation === 'Create') throw error;
      if (operation.operation === 'CreateIfNotExists') return;
    }
    await this.#withConflictRetry(async () => {
      const objectPath = this.#objectPath(resource, ref, operation.subresource);
      const existing = await this.#api.request('GET', objectPath);
      const existingMeta = isJsonObject(existing.metadata) ? existing.metadata : {};
      const metadata = isJsonObject(object.metadata) ? object.metadata : {};
      const resourceVersion = existingMeta.resourceVersion ?? '';
      const update = { ...object, metadata: { ...metadata, resourceVersion } };
      await this.#api.request('PUT', objectPath, { body: update });
    });
  }

  async #delete(operation: DeleteOperation): Promise<void> {
    const resource = await this.#resource(operation);
    const path = this.#objectPath(resource, operation, operation.subresource);
    // As a query parameter rather than a DeleteOptions body: the API server reads both.
    const query = { propagationPolicy: PROPAGATION[operation.operation] };
    try {
      await this.#api.request('DELETE', path, { query });
    } catch (error: unknown) {
      if (isStatus(error, 404)) return;
      throw error;
    }
    if (operation.operation === 'Delete') await this.#waitGone(path);
  }

  /** A foreground delete ends when the object is gone: its dependents were deleted first. */
  async #waitGone(path: string): Promise<void> {
    const deadline = this.#clock.now() + this.#foregroundWaitMs;
    for (;;) {
      try {
        await this.#api.request('GET', path);
      } catch (error: unknown) {
        if (isStatus(error, 404)) return;
        throw error;
      }
      if (this.#clock.now() >= deadline)
        throw new Error(
          `still present ${String(this.#foregroundWaitMs / 1000)} s after its foreground deletion`,
        );
      await sleep(this.#clock, this.#pollMs);
    }
  }

  async #patch(operation: PatchOperation): Promise<void> {
    const resource = await this.#resource(operation);
    const path = this.#objectPath(resource, operation, operation.subresource);
    if (operation.operation === 'JQPatch') {
      const filter = operation.jqFilter;
      await this.#withConflictRetry(async () => {
        const current = await this.#api.request('GET', path);
        const outputs = await Promise.resolve(
          this.#jq.evaluate(filter, current, `JQPatch of ${describe(operation)}`),
        );
        const [patched] = outputs;
        if (outputs.length !== 1 || !isJsonObject(patched))
          throw new Error(
            `jqFilter '${filter}' must yield exactly one object, yielded ${String(outputs.length)} values`,
          );
        await this.#api.request('PUT', path, { body: patched });
      });
      return;
    }
    const [contentType, body] =
      operation.operation === 'MergePatch'
        ? ['application/merge-patch+json', operation.mergePatch]
        : ['application/json-patch+json', operation.jsonPatch];
    try {
      await this.#api.request('PATCH', path, { body, contentType });
    } catch (error: unknown) {
      if (isStatus(error, 404) && operation.ignoreMissingObject) return;
      throw error;
    }
  }

  async #resource(ref: ObjectReference): Promise<ApiResource> {
    const resource = await this.#resolver.resolve(ref.apiVersion, ref.kind);
    if (!resource)
      throw new Error(
        `the API server serves no kind '${ref.kind}'${ref.apiVersion ? ` in ${ref.apiVersion}` : ''}`,
      );
    return resource;
  }

  #objectPath(resource: ApiResource, ref: ObjectReference, subresource: string | undefined): string {
    const path = resourcePath(resource, ref.namespace, ref.name);
    return subresource ? `${path}/${subresource}` : path;
  }

  async #withConflictRetry(attempt: () => Promise<void>): Promise<void> {
    for (let tries = 1; ; tries++) {
      try {
        await attempt();
        return;
      } catch (error: unknown) {
        if (!isStatus(error, 409) || tries >= CONFLICT_RETRIES) throw error;
      }
    }
  }
}

function isStatus(error: unknown, status: number): boolean {
  return error instanceof KubeApiError && error.status === status;
}

function describe(operation: ObjectPatchOperation): string {
  const ref = 'target' in operation ? operation.target : operation;
  return `${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}`;
}
