import { createHash } from 'node:crypto';
import type { OperatorContext, PruneGuardSettings, PruneHold } from './operator-context.ts';

/** The annotation on the operator's ConfigMap that confirms a held mass uninstall. */
export const ALLOW_PRUNE_ANNOTATION = 'kaddon.dev/allow-prune';

/**
 * Whether uninstalling `removals` of `delivered` releases at once is a mass deletion: more than
 * `percent` of them, or all of them (even one of one) unless the guard is off (100).
 */
export function isMassPrune(removals: number, delivered: number, percent: number): boolean {
  if (percent >= 100 || removals === 0) return false;
  return removals >= delivered || removals * 100 > percent * delivered;
}

/**
 * What a confirmation names: the revision of the tree in use (`local` without Git) and the releases
 * to uninstall, so that a confirmation never carries over to another commit or another set.
 */
export function pruneId(revision: string | undefined, releases: readonly string[]): string {
  const text = JSON.stringify([revision ?? 'local', [...releases].sort()]);
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

/**
 * The prune guard of a converge (docs/lifecycle.md "Missing inputs and mass deletion"): `removals`
 * are the releases it would uninstall (module deletes and purges), `delivered` all it manages. A mass
 * deletion not confirmed by ALLOW_PRUNE_ANNOTATION is held: returned, reported once per id (a warn
 * line, a Warning Event on the ConfigMap, prune_held_modules) and kept for the next converge.
 */
export function heldPrunes(
  ctx: OperatorContext,
  removals: readonly string[],
  delivered: readonly string[],
): readonly string[] {
  const settings = ctx.pruneGuard;
  const before = ctx.state.pruneHold;
  if (settings === undefined || !isMassPrune(removals.length, delivered.length, settings.percent)) {
    release(ctx, before);
    return [];
  }
  const id = pruneId(ctx.modulesSource?.status().revisionInUse, removals);
  if (ctx.state.allowPrune === id) {
    ctx.logger.warn('uninstalls confirmed by annotation: going on', {
      releases: removals.join(','),
      annotation: `${ALLOW_PRUNE_ANNOTATION}=${id}`,
    });
    release(ctx, before);
    return [];
  }
  ctx.state.pruneHold = { id, releases: removals };
  ctx.metrics.pruneHeld(removals.length);
  if (before?.id !== id) report(ctx, settings, id, removals, delivered.length);
  return removals;
}

function release(ctx: OperatorContext, before: PruneHold | undefined): void {
  if (before === undefined) return;
  ctx.state.pruneHold = undefined;
  ctx.metrics.pruneHeld(0);
}

function report(
  ctx: OperatorContext,
  settings: PruneGuardSettings,
  id: string,
  removals: readonly string[],
  delivered: number,
): void {
  const confirm = `kubectl -n ${ctx.namespace} annotate configmap ${settings.configMap} --overwrite ${ALLOW_PRUNE_ANNOTATION}=${id}`;
  const what = `${String(removals.length)} of ${String(delivered)} delivered releases would be uninstalled at once (${removals.join(', ')})`;
  ctx.logger.warn(
    `uninstalls held: ${what}, more than KADDON_PRUNE_GUARD_PERCENT=${String(settings.percent)} allows. Installs and upgrades go on. To uninstall them, confirm with: ${confirm}`,
    { releases: removals.join(','), id },
  );
  settings.recordEvent?.({
    type: 'Warning',
    reason: 'UninstallsHeld',
    note: `${what}; held until confirmed: ${confirm}`,
  });
}
