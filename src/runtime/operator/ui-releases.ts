import { CHECKSUM_VALUES_KEY } from '../../delivery/helm/deliver-module.ts';
import type { ApplyApi } from '../../delivery/drift/release-objects.ts';
import { revisionDiff } from '../../delivery/drift/revision-diff.ts';
import type { ReleaseRecord } from '../../delivery/native/release-record.ts';
import { ReleaseRecords } from '../../delivery/native/release-records.ts';
import type { UiRelease } from '../../observability/ui/ui-state.ts';

/** How long a module's history read for the page answers again (a page redraws on every change). */
const HISTORY_TTL_MS = 10_000;
/** Modules whose history is kept at once: those being looked at. */
const HISTORY_KEPT = 8;

export interface UiReleases {
  /** Newest first; empty when the module has no release. */
  history(module: string): Promise<UiRelease[]>;
  /** What changed from revision `from` to `to`; undefined when either is not in the history. */
  diff(module: string, from: number, to: number): Promise<string | undefined>;
}

/**
 * A module's release history for the status page (docs/ui.md "Releases"), read from helm's storage
 * when a module's page asks: one list of the release's Secrets, kept a few seconds for the redraws
 * that follow, and dropped when the module's delivered revision moves on.
 */
export function createUiReleases(options: {
  readonly api: ApplyApi;
  readonly namespace: string;
  /** The module's last delivered helm revision as the operator knows it: a new one reads again. */
  readonly deliveredRevision: (module: string) => number | undefined;
  readonly now?: () => number;
}): UiReleases {
  const records = new ReleaseRecords(options.api);
  const kept = new Map<
    string,
    { at: number; revision: number | undefined; read: Promise<ReleaseRecord[]> }
  >();
  const now = options.now ?? Date.now;
  const read = (module: string): Promise<ReleaseRecord[]> => {
    const revision = options.deliveredRevision(module);
    const entry = kept.get(module);
    if (entry !== undefined && entry.revision === revision && now() - entry.at < HISTORY_TTL_MS)
      return entry.read;
    const fresh = records.history(module, options.namespace);
    kept.delete(module);
    kept.set(module, { at: now(), revision, read: fresh });
    fresh.catch(() => kept.delete(module));
    for (const name of kept.keys()) if (kept.size > HISTORY_KEPT) kept.delete(name);
    return fresh;
  };
  return {
    history: async (module) =>
      (await read(module))
        .map((record) => ({
          revision: record.version,
          status: record.info.status,
          updated: record.info.last_deployed,
          description: record.info.description,
          checksum:
            typeof record.config[CHECKSUM_VALUES_KEY] === 'string' ? record.config[CHECKSUM_VALUES_KEY] : '',
        }))
        .reverse(),
    diff: async (module, from, to) => {
      const history = await read(module);
      const older = history.find((record) => record.version === from);
      const newer = history.find((record) => record.version === to);
      return older === undefined || newer === undefined ? undefined : revisionDiff(older, newer);
    },
  };
}
