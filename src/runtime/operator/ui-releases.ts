import { CHECKSUM_VALUES_KEY } from '../../delivery/helm/deliver-module.ts';
import type { ApplyApi } from '../../delivery/drift/release-objects.ts';
import { revisionDiff } from '../../delivery/drift/revision-diff.ts';
import type { ReleaseRecord } from '../../delivery/native/release-record.ts';
import { ReleaseRecords } from '../../delivery/native/release-records.ts';
import { KeptAnswers } from '../../core/kept-answers.ts';
import type { UiRelease } from '../../observability/ui/ui-state.ts';

/** How long a module's history read for the page answers again (a page redraws on every change). */
const HISTORY_TTL_MS = 10_000;
/**
 * Histories kept at once. Each is dropped 10 s after its read, so this bounds only a burst: the page
 * asks for modules of the tree alone, and fewer than this many a tree keeps every module's read for
 * its 10 s, however many modules are asked for in turn.
 */
const HISTORY_KEPT = 1000;

export interface UiReleases {
  /** Newest first; empty when the module has no release. */
  history(module: string): Promise<UiRelease[]>;
  /** What changed from revision `from` to `to`; undefined when either is not in the history. */
  diff(module: string, from: number, to: number): Promise<string | undefined>;
}

/**
 * A module's release history for the status page (docs/ui.md "Releases"), read from helm's storage
 * when a module's page asks: one list of the release's Secrets, kept 10 s for the redraws that
 * follow, and dropped when the module's delivered revision moves on. `api` is the page's own
 * client, never the operator's (docs/ui.md "Limits").
 */
export function createUiReleases(options: {
  readonly api: ApplyApi;
  readonly namespace: string;
  /** The module's last delivered helm revision as the operator knows it: a new one reads again. */
  readonly deliveredRevision: (module: string) => number | undefined;
  readonly now?: () => number;
}): UiReleases {
  const records = new ReleaseRecords(options.api);
  const kept = new KeptAnswers<{ revision: number | undefined; read: Promise<ReleaseRecord[]> }>({
    ttlMs: HISTORY_TTL_MS,
    limit: HISTORY_KEPT,
    ...(options.now ? { now: options.now } : {}),
  });
  // A read under way is kept from its start: requests for the module meanwhile wait for that one.
  const read = (module: string): Promise<ReleaseRecord[]> => {
    const revision = options.deliveredRevision(module);
    const entry = kept.get(module);
    if (entry !== undefined && entry.revision === revision) return entry.read;
    const fresh = { revision, read: records.history(module, options.namespace) };
    kept.set(module, fresh);
    fresh.read.catch(() => {
      kept.delete(module, fresh);
    });
    return fresh.read;
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
