import { DebugRouteError } from './debug-errors.ts';
import type { DebugState, GitStatus } from './debug-state.ts';

/**
 * What the debug socket answers before the operator has its state: while it waits for the first good revision
 * of its modules repository, `kaddon git status` says why (docs/observability.md "Debug socket", issue 8: a
 * refused revision is visible on the debug socket); every other command answers 503 with `reason`.
 */
export function startingDebugState(reason: string, gitStatus: () => GitStatus | undefined): DebugState {
  const unavailable = (): never => {
    throw new DebugRouteError(
      'debug-unavailable',
      `the operator is starting: ${reason}.`,
      'Try again once it has started; `kaddon git status` answers already.',
    );
  };
  return {
    queueList: unavailable,
    queueMain: unavailable,
    globalHooks: unavailable,
    globalValues: unavailable,
    globalConfig: unavailable,
    globalPatches: unavailable,
    modules: unavailable,
    moduleValues: unavailable,
    valueOrigins: unavailable,
    moduleConfig: unavailable,
    modulePatches: unavailable,
    resourceMonitors: unavailable,
    renderedManifests: unavailable,
    moduleDiff: unavailable,
    hookSnapshots: unavailable,
    gitStatus,
  };
}
