import { systemClock } from '../../core/clock.ts';
import type { Resource } from '../../core/resource.ts';
import { GLOBAL_OWNER, moduleOwner, ownerValuesKey } from '../../core/values.ts';
import { stringifyYamlStream } from '../../core/yaml/yaml.ts';
import {
  deliverModule,
  releaseChecksum,
  type DeliverResult,
  type OwnerPatches,
} from '../../delivery/helm/deliver-module.ts';
import type { ModulesTree } from '../../loader/modules-tree.ts';
import { renderTreeWithCharts, type ChartCache } from '../build/render-charts.ts';
import { ModuleLoadCache, type RenderTreeResult } from '../build/render-tree.ts';
import type { JsonObject } from '../../core/json.ts';
import { handoverKey } from '../../delivery/native/object-handover.ts';
import type { OperatorContext } from './operator-context.ts';
import { prerequisites } from './delivery-prerequisites.ts';

/** The module whose run delivers the tree, for its render and helm metrics. */
export interface DeliverRun {
  readonly module: string;
  readonly activation: string;
  /** Whether a module has a ModuleRun waiting: its own run delivers it, with its hooks run first. */
  readonly willRun?: (module: string) => boolean;
  /**
   * Leave the running module's delivery running (docs/lifecycle.md "Overlapping delivery"): its
   * expected checksum is recorded at once, and a failure is the pool's to report.
   */
  readonly background?: boolean;
}

/**
 * Renders the WHOLE tree of enabled modules (composition: a Component module changes the slices
 * of the modules before it; only the modules whose values changed are composed again when that
 * gives the same, docs/architecture.md "Incremental composition") and delivers the running
 * module's slice as its release. Another
 * prepared module whose slice now differs from what was last delivered (its checksum is kept in
 * memory, so an unchanged one costs no helm call) and that has no run waiting is returned, to be
 * run too.
 */
export async function deliverTree(ctx: OperatorContext, run: DeliverRun): Promise<string[]> {
  const states = ctx.state.modules;
  const enabled = states.enabled;
  const startedAt = performance.now();
  const result = await renderEnabled(ctx);
  ctx.metrics.moduleRender(run.module, (performance.now() - startedAt) / 1000);
  // A broken module fails its own run; the others are rendered and delivered without it.
  const failure = result.failed.get(run.module);
  if (failure !== undefined) throw failure;
  reportRender(ctx, result);
  const changed: string[] = [];
  for (const module of enabled) {
    const resources = result.rendered.slices.get(module) ?? [];
    if (states.get(module)?.prepared !== true) continue;
    // Only the running module's manifest is needed: the others' are compared by checksum.
    const manifest = module === run.module ? releaseManifest(resources) : undefined;
    const checksum = releaseChecksumOf(resources, manifest);
    if (resources.length === 0 && module === run.module) {
      await deliverEmptySlice(ctx, run, module, result);
      continue;
    }
    if (resources.length === 0) {
      // A slice that emptied (its components turned off, or a Component deletes what it held)
      // is delivered by the module's own run: its release is upgraded to nothing.
      if (hadObjects(states.get(module)?.checksum) && run.willRun?.(module) !== true) changed.push(module);
      continue;
    }
    if (manifest !== undefined) {
      const resourcesMissing = states.get(module)?.resourcesMissing === true;
      const takeOver = states.get(module)?.takeOver === true;
      const slice = {
        module,
        resources,
        manifest,
        resourcesMissing,
        takeOver,
        others: result.rendered.slices,
      };
      await deliverOwnSlice(ctx, run, slice, result);
    } else if (states.get(module)?.checksum !== checksum && run.willRun?.(module) !== true)
      changed.push(module);
  }
  return changed;
}

/** The checksum of a release with no objects: what a module with an empty slice delivers. */
const EMPTY_CHECKSUM = releaseChecksum('');

/** Whether a delivered checksum is of a slice that held objects (undefined: nothing delivered yet). */
function hadObjects(checksum: string | undefined): boolean {
  return checksum !== undefined && checksum !== EMPTY_CHECKSUM;
}

/**
 * The running module's slice is empty (docs/lifecycle.md "Helm delivery"): a module that has a
 * release (its slice held objects once) has it upgraded to no objects, as helm upgrades a chart that
 * renders nothing, so what it held is deleted; one without a release (a Component module that only
 * patches others) gets none.
 */
async function deliverEmptySlice(
  ctx: OperatorContext,
  run: DeliverRun,
  module: string,
  result: RenderTreeResult,
): Promise<void> {
  const state = ctx.state.modules.get(module);
  const hasRelease =
    hadObjects(state?.checksum) ||
    (state?.checksum === undefined &&
      !ctx.state.modules.peekReleaseAbsent(module) &&
      (await ctx.helm.release(module, ctx.namespace)) !== undefined);
  if (!hasRelease) {
    reportNothingToDeliver(ctx, module);
    return;
  }
  const resourcesMissing = state?.resourcesMissing === true;
  const takeOver = state?.takeOver === true;
  const slice = {
    module,
    resources: [],
    manifest: '',
    resourcesMissing,
    takeOver,
    others: result.rendered.slices,
  };
  await deliverOwnSlice(ctx, run, slice, result);
}

function reportNothingToDeliver(ctx: OperatorContext, module: string): void {
  ctx.status?.setGitRevision(ctx.modulesSource?.status().revisionInUse);
  ctx.state.modules.deliveredNothing(module, EMPTY_CHECKSUM);
  void ctx.health?.follow(module, []);
}

/** The running module's slice to helm: in the delivery pool, awaited or left running. */
async function deliverOwnSlice(
  ctx: OperatorContext,
  run: DeliverRun,
  slice: Slice,
  result: RenderTreeResult,
): Promise<void> {
  const { module, resources } = slice;
  const slices = result.rendered.slices;
  // docs/lifecycle.md "Parallel module runs": a run that entered the pool earlier and holds this
  // slice's Namespace or CRD asks for its delivery first.
  const runs = ctx.moduleRuns;
  if (runs?.pending(module) === true)
    await runs.settle(prerequisites(module, resources, slices, (other) => runs.isEarlier(other, module)));
  const pool = ctx.deliveries;
  if (pool === undefined) {
    await deliverSlice(ctx, run, slice);
    return;
  }
  const after = prerequisites(module, resources, slices, (other) => pool.pending(other));
  if (run.background === true) {
    ctx.state.modules.startDelivery(module, releaseChecksumOf(resources, slice.manifest));
    pool.start(module, () => deliverSlice(ctx, run, slice), after);
  } else await pool.run(module, () => deliverSlice(ctx, run, slice), after);
}

/**
 * A render's unresolved references and warnings, reported once per render: runs that reuse a
 * render (nothing changed the values) do not report it again.
 */
function reportRender(ctx: OperatorContext, result: RenderTreeResult): void {
  if (reported.has(result)) return;
  reported.add(result);
  const unresolved = new Map<string, number>();
  for (const reference of result.unresolved)
    unresolved.set(reference.module, (unresolved.get(reference.module) ?? 0) + 1);
  for (const module of ctx.state.modules.enabled)
    ctx.metrics.unresolvedVarReferences(module, unresolved.get(module) ?? 0);
  for (const warning of result.warnings) ctx.logger.info(`warning: ${warning}`);
}

const reported = new WeakSet<RenderTreeResult>();

/** A slice's release manifest, printed anew: only the running module's delivery needs it. */
function releaseManifest(resources: readonly Resource[]): string {
  return stringifyYamlStream(resources.map((resource) => resource.obj));
}

/**
 * A slice's release checksum, made once per slice: every run compares every prepared module's
 * checksum, and a render composed from the modules that changed hands the other modules' slices
 * on as they were (docs/architecture.md "Incremental composition"), so only new slices are printed
 * again. Only the checksum is kept: the manifests of every slice of the last render were some
 * 2.5 kB a module held for nothing. `manifest`, when the caller printed it already, is the slice's.
 */
export function releaseChecksumOf(resources: readonly Resource[], manifest?: string): string {
  let checksum = releaseChecksums.get(resources);
  if (checksum === undefined) {
    checksum = releaseChecksum(manifest ?? releaseManifest(resources));
    releaseChecksums.set(resources, checksum);
  }
  return checksum;
}

const releaseChecksums = new WeakMap<readonly Resource[], string>();

interface Slice {
  readonly module: string;
  readonly resources: readonly Resource[];
  readonly manifest: string;
  readonly resourcesMissing: boolean;
  /** Take back fields changed by hand (the end of maintenance, docs/operations.md). */
  readonly takeOver: boolean;
  /** Every module's slice of the same render: what the others hold is handed over, not deleted. */
  readonly others: ReadonlyMap<string, readonly Resource[]>;
}

/**
 * What the other enabled modules' slices hold now, for a disabled module's uninstall to leave
 * (docs/delivery.md "Objects moving between modules"); undefined when the tree does not render
 * (nothing is handed over then, and the render's own runs report why).
 */
export async function heldByOthers(
  ctx: OperatorContext,
  module: string,
): Promise<((object: JsonObject) => boolean) | undefined> {
  try {
    const result = await renderEnabled(ctx);
    return handedOverBy(result.rendered.slices, module, ctx.namespace);
  } catch {
    return undefined;
  }
}

/**
 * Whether an object is held by another module's slice of the render (docs/delivery.md "Objects
 * moving between modules"); the keys are made on first use, once per render.
 */
function handedOverBy(
  slices: ReadonlyMap<string, readonly Resource[]>,
  module: string,
  namespace: string,
): (object: JsonObject) => boolean {
  let keys: Map<string, string> | undefined;
  return (object) => {
    keys ??= sliceKeys(slices, namespace);
    const holder = keys.get(handoverKey(object, namespace));
    return holder !== undefined && holder !== module;
  };
}

/** Each object's handover key with the module whose slice holds it, made once per render. */
function sliceKeys(slices: ReadonlyMap<string, readonly Resource[]>, namespace: string): Map<string, string> {
  let keys = renderKeys.get(slices);
  if (keys === undefined) {
    keys = new Map();
    for (const [module, resources] of slices)
      for (const resource of resources) keys.set(handoverKey(resource.obj, namespace), module);
    renderKeys.set(slices, keys);
  }
  return keys;
}

const renderKeys = new WeakMap<ReadonlyMap<string, readonly Resource[]>, Map<string, string>>();

/** One module's release upgraded (or found unchanged), with what the operator keeps of it. */
async function deliverSlice(ctx: OperatorContext, run: DeliverRun, slice: Slice): Promise<void> {
  const { module, resources, manifest, resourcesMissing, takeOver } = slice;
  const helmStartedAt = performance.now();
  // Objects helm removes during the upgrade are not deletions to heal.
  ctx.resources?.pause(module);
  let outcome: DeliverResult;
  // Asked once: a failed install is retried with helm's own answer.
  const knownAbsent = ctx.state.modules.takeReleaseAbsent(module);
  const running = followLongHelm(ctx, module);
  try {
    outcome = await deliverModule(
      {
        module,
        namespace: ctx.namespace,
        manifest,
        resourcesMissing,
        ...(takeOver ? { forceConflicts: true } : {}),
        knownAbsent,
        valuesPatches: valuesPatchesOf(ctx, module),
        handedOver: handedOverBy(slice.others, module, ctx.namespace),
      },
      { helm: ctx.helm, timeoutSeconds: ctx.helmTimeoutSeconds },
    );
    ctx.resources?.delivered(
      module,
      resources.map((resource) => resource.id),
      {
        unchanged: outcome.outcome === 'unchanged',
        desired: resources.map((resource) => resource.obj),
        revision: outcome.revision,
      },
    );
  } finally {
    running();
    ctx.resources?.resume(module);
  }
  const seconds = (performance.now() - helmStartedAt) / 1000;
  ctx.metrics.helmOperation({ module, activation: run.activation, operation: 'deliver' }, seconds);
  if (outcome.recovery !== undefined)
    ctx.logger.info('stuck release recovered', {
      module,
      from: outcome.recovery.from,
      action: outcome.recovery.action,
      ...(outcome.recovery.action === 'rollback' ? { toRevision: outcome.recovery.toRevision } : {}),
    });
  if (outcome.outcome !== 'unchanged')
    ctx.logger.info(`release ${outcome.outcome}`, {
      module,
      revision: outcome.revision,
    });
  if (outcome.outcome !== 'unchanged' && outcome.foreign !== undefined) {
    const taken = { from: outcome.foreign.revision, to: outcome.revision, why: outcome.foreign.why };
    ctx.logger.info('release revision not written by kaddon taken back', { module, ...taken });
    ctx.status?.releaseTakenBack(module, taken);
  }
  ctx.status?.setGitRevision(ctx.modulesSource?.status().revisionInUse);
  ctx.state.modules.finishDelivery(module, {
    ids: resourceIds(resources),
    checksum: outcome.checksum,
    helmRevision: outcome.revision,
  });
  void ctx.health?.follow(module, resources);
}

/** The hooks' values patches the module's slice is rendered with, recorded in its release. */
function valuesPatchesOf(ctx: OperatorContext, module: string): OwnerPatches {
  const owners = [GLOBAL_OWNER, moduleOwner(module)];
  return new Map(owners.map((owner) => [ownerValuesKey(owner), ctx.store.patches(owner)]));
}

/** How often a helm call still running is named in the log. */
const LONG_HELM_LOG_MS = 60_000;

/**
 * A delivery's helm calls, named while they run (docs/lifecycle.md "Failure isolation"): the
 * helm_operation_running_seconds metric, and a log line each minute until they end.
 */
function followLongHelm(ctx: OperatorContext, module: string): () => void {
  const done = ctx.metrics.helmOperationStarted(module, 'deliver');
  const startedAt = performance.now();
  let cancel = (): void => undefined;
  const arm = (): void => {
    cancel = systemClock.setTimer(() => {
      ctx.logger.info('helm is still running', {
        module,
        seconds: Math.round((performance.now() - startedAt) / 1000),
        timeoutSeconds: ctx.helmTimeoutSeconds,
      });
      arm();
    }, LONG_HELM_LOG_MS);
  };
  arm();
  return () => {
    cancel();
    done();
  };
}

/**
 * The tree rendered with the current values of the enabled modules (also the debug `render`). A
 * render that failed nowhere is kept and given again while the tree, the enabled modules and the
 * values are the same: a converge whose hooks change no values renders once, not once per module.
 */
export async function renderEnabled(ctx: OperatorContext): Promise<RenderTreeResult> {
  const enabled = ctx.state.modules.enabled;
  const caches = cachesFor(ctx.tree);
  const key = { values: ctx.store.revision, enabled: enabled.join('\n') };
  const kept = caches.lastRender;
  if (kept && kept.values === key.values && kept.enabled === key.enabled) return kept.result;
  // Runs in parallel that ask for the same render share it (docs/lifecycle.md "Parallel module runs").
  const current = caches.rendering;
  if (current && current.values === key.values && current.enabled === key.enabled) return current.result;
  const rendering = { ...key, result: renderValues(ctx, enabled, caches) };
  caches.rendering = rendering;
  try {
    const result = await rendering.result;
    caches.lastRender = result.failed.size === 0 ? { ...key, result } : undefined;
    return result;
  } finally {
    if (caches.rendering === rendering) caches.rendering = undefined;
  }
}

function renderValues(
  ctx: OperatorContext,
  enabled: readonly string[],
  caches: TreeCaches,
): Promise<RenderTreeResult> {
  return renderTreeWithCharts(
    {
      tree: ctx.tree,
      values: ctx.store.renderViews(enabled),
      sharedComponentRoots: ctx.sharedComponentRoots,
      jq: ctx.jq,
      cache: caches.modules,
      isolateFailures: true,
    },
    {
      helm: ctx.helm,
      namespace: ctx.namespace,
      helmValues: (name) => ctx.store.helmValues(name),
      tmpRoot: ctx.runDeps.tmpRoot,
      cache: caches.charts,
    },
  );
}

interface TreeCaches {
  readonly modules: ModuleLoadCache;
  readonly charts: ChartCache;
  /** The last render without failures and what it was rendered from. */
  lastRender?:
    { readonly values: object; readonly enabled: string; readonly result: RenderTreeResult } | undefined;
  /** The render under way, which a run asking for the same one awaits. */
  rendering?:
    | { readonly values: object; readonly enabled: string; readonly result: Promise<RenderTreeResult> }
    | undefined;
}

/**
 * What renders of a tree reuse: every module run renders the whole tree, and only the modules
 * whose values changed are read (or `helm template`d) again. A new tree (a new Git revision)
 * starts empty.
 */
const treeCaches = new WeakMap<ModulesTree, TreeCaches>();

function cachesFor(tree: ModulesTree): TreeCaches {
  let caches = treeCaches.get(tree);
  if (caches === undefined) {
    caches = { modules: new ModuleLoadCache(), charts: new Map() };
    treeCaches.set(tree, caches);
  }
  return caches;
}

/** `ns/Kind/name`, sorted (docs/observability.md "Debug socket" resource monitor). */
function resourceIds(resources: readonly Resource[]): string[] {
  return resources.map(({ id }) => `${id.namespace}/${id.kind}/${id.name}`).sort();
}
