import { createHash, randomBytes } from 'node:crypto';
import type { OperatorContext, PruneGuardSettings, PruneHold } from './operator-context.ts';

/** The annotation on the operator's ConfigMap that confirms a held mass uninstall. */
export const ALLOW_PRUNE_ANNOTATION = 'kaddon.dev/allow-prune';

/**
 * Whether uninstalling `removals` of `delivered` releases at once is a mass deletion: `percent` or
 * more of them (4 of 8 at 50), or all of them (even one of one), unless the guard is off (100).
 */
export function isMassPrune(removals: number, delivered: number, percent: number): boolean {
  if (percent >= 100 || removals === 0) return false;
  return removals >= delivered || removals * 100 >= percent * delivered;
}

/**
 * What a confirmation names: the revision of the tree in use (`local` without Git), the releases to
 * uninstall and the hold's own nonce, so that a confirmation never carries over to another commit,
 * another set, or a later hold of the same set.
 */
export function pruneId(revision: string, releases: readonly string[], nonce: string): string {
  const text = JSON.stringify([revision, [...releases].sort(), nonce]);
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

/**
 * The prune guard of a converge (docs/lifecycle.md "Missing inputs and mass deletion"): `removals`
 * are the releases it would uninstall (module deletes and purges), `delivered` all it manages. A mass
 * deletion, or one that still holds a release of the standing hold, is held unless ALLOW_PRUNE_ANNOTATION
 * names the hold's id: returned, reported once per hold (a warn line, a Warning Event on the
 * ConfigMap, prune_held_modules) and kept for the next converge. A confirmation covers the uninstalls
 * of its hold until they are done, and nothing after.
 */
export function heldPrunes(
  ctx: OperatorContext,
  removals: readonly string[],
  delivered: readonly string[],
): readonly string[] {
  const settings = ctx.pruneGuard;
  if (settings === undefined) return [];
  const { state } = ctx;
  const revision = ctx.modulesSource?.status().revisionInUse ?? 'local';
  if (isCovered(state.pruneConfirmed, revision, removals)) return [];
  state.pruneConfirmed = undefined;
  const before = state.pruneHold;
  const mass = isMassPrune(removals.length, delivered.length, settings.percent);
  const standing = before !== undefined && removals.some((release) => before.releases.includes(release));
  if (!mass && !standing) {
    release(ctx, before);
    return [];
  }
  const hold =
    before !== undefined && isSameHold(before, revision, removals) ? before : newHold(revision, removals);
  if (state.allowPrune === hold.id) {
    ctx.logger.warn('uninstalls confirmed by annotation: going on', {
      releases: removals.join(','),
      annotation: `${ALLOW_PRUNE_ANNOTATION}=${hold.id}`,
    });
    state.pruneConfirmed = hold;
    release(ctx, before);
    return [];
  }
  state.pruneHold = hold;
  ctx.metrics.pruneHeld(removals.length);
  if (before?.id !== hold.id) report(ctx, settings, hold, delivered.length, mass);
  return removals;
}

/** Removals a confirmation still covers: some of its releases, at its revision, nothing else. */
function isCovered(confirmed: PruneHold | undefined, revision: string, removals: readonly string[]): boolean {
  if (confirmed === undefined || removals.length === 0 || confirmed.revision !== revision) return false;
  return removals.every((release) => confirmed.releases.includes(release));
}

function isSameHold(hold: PruneHold, revision: string, removals: readonly string[]): boolean {
  return (
    hold.revision === revision &&
    hold.releases.length === removals.length &&
    removals.every((release) => hold.releases.includes(release))
  );
}

function newHold(revision: string, releases: readonly string[]): PruneHold {
  return { id: pruneId(revision, releases, randomBytes(8).toString('hex')), revision, releases };
}

function release(ctx: OperatorContext, before: PruneHold | undefined): void {
  if (before === undefined) return;
  ctx.state.pruneHold = undefined;
  ctx.metrics.pruneHeld(0);
}

function report(
  ctx: OperatorContext,
  settings: PruneGuardSettings,
  hold: PruneHold,
  delivered: number,
  mass: boolean,
): void {
  const { id, releases } = hold;
  const confirm = `kubectl -n ${ctx.namespace} annotate configmap ${settings.configMap} --overwrite ${ALLOW_PRUNE_ANNOTATION}=${id}`;
  const what = `${String(releases.length)} of ${String(delivered)} delivered releases would be uninstalled at once (${releases.join(', ')})`;
  const why = mass
    ? `${String(settings.percent)} % or more of them (KADDON_PRUNE_GUARD_PERCENT)`
    : 'some of them held before and not yet confirmed';
  ctx.logger.warn(
    `uninstalls held: ${what}, ${why}. Installs and upgrades go on. To uninstall them, confirm with: ${confirm}`,
    { releases: releases.join(','), id },
  );
  settings.recordEvent?.({
    type: 'Warning',
    reason: 'UninstallsHeld',
    note: `${what}; held until confirmed: ${confirm}`,
  });
  // On each Module too: what its notifications and `kubectl describe module` show.
  for (const release of releases)
    ctx.status?.uninstallHeld(
      release,
      `not uninstalled: the prune guard holds it (${why}); confirm with: ${confirm}`,
    );
}
