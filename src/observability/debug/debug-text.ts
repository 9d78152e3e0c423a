import { isJsonObject, scalarText, type JsonValue } from '../../core/json.ts';
import type { ValueOrigin } from '../../core/values-origin.ts';
import type { DebugModule, GitStatus, HookSnapshots, SnapshotItem } from './debug-state.ts';

/** The text forms of the debug routes that read better as tables or lists than as YAML. */

export const NO_MONITOR = 'No monitor';

/** `module list -o text`: one row per module, in module order. */
export function formatModuleList(modules: readonly DebugModule[]): string {
  return formatTable([
    ['MODULE', 'ENABLED', 'STATE'],
    ...modules.map((m) => [m.name, String(m.enabled), m.state]),
  ]);
}

/** `module values NAME --origin -o text`: each leaf, its value as JSON and where it came from. */
export function formatValueOrigins(origins: readonly ValueOrigin[]): string {
  return formatTable([
    ['PATH', 'VALUE', 'ORIGIN'],
    ...origins.map((entry) => [entry.path || '/', JSON.stringify(entry.value), entry.origin]),
  ]);
}

/** Rows as aligned columns two spaces apart, the first row the header. */
function formatTable(rows: readonly (readonly string[])[]): string {
  const columns = Math.max(...rows.map((row) => row.length));
  const widths = Array.from({ length: columns }, (_, column) =>
    Math.max(...rows.map((row) => (row[column] ?? '').length)),
  );
  const lines = rows.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd(),
  );
  return `${lines.join('\n')}\n`;
}

/** `module resource-monitor -o text`: each module, then its monitored resource ids. */
export function formatResourceMonitors(dump: Readonly<Record<string, readonly string[] | string>>): string {
  const blocks = Object.entries(dump).map(([module, ids]) =>
    typeof ids === 'string' ? `${module}: ${ids}` : [`${module}:`, ...ids.map((id) => `  ${id}`)].join('\n'),
  );
  return blocks.length === 0 ? 'No enabled modules.\n' : `${blocks.join('\n')}\n`;
}

/** `git status -o text`: the source, the revisions and the last error. */
export function formatGitStatus(status: GitStatus | undefined): string {
  if (status === undefined) return 'No Git source: the modules tree is MODULES_DIR.\n';
  const rows = [
    `Git source: ${status.url} (${status.ref === undefined ? 'default branch' : `ref ${status.ref}`})`,
    `Revision in use: ${status.revisionInUse ?? 'none yet'}`,
    `Newest good revision: ${status.currentRevision ?? 'none yet'}`,
    `Last good sync: ${status.lastSyncTime ?? 'never'}`,
    `Last error: ${status.lastError ?? 'none'}`,
  ];
  return `${rows.join('\n')}\n`;
}

/** `hook snapshots -o text`: per hook and binding, the count and one line per object. */
export function formatHookSnapshots(hooks: readonly HookSnapshots[]): string {
  if (hooks.length === 0) return 'No hooks with kubernetes bindings.\n';
  const blocks = hooks.map((hook) => {
    const owner = hook.module === undefined ? 'global' : `module '${hook.module}'`;
    const bindings = Object.entries(hook.bindings).map(([binding, items]) =>
      [
        `  binding '${binding}': ${items.length} object${items.length === 1 ? '' : 's'}`,
        ...items.map((item) => `    ${describeItem(item)}`),
      ].join('\n'),
    );
    return [`Hook '${hook.hook}' (${owner}):`, ...bindings].join('\n');
  });
  return `${blocks.join('\n\n')}\n`;
}

function describeItem(item: SnapshotItem): string {
  const filter = item.filterResult === undefined ? '' : `filterResult: ${scalarText(item.filterResult)}`;
  if (item.object === undefined) return filter;
  const id = objectId(item.object);
  return filter === '' ? id : `${id} ${filter}`;
}

function objectId(object: JsonValue): string {
  const metadata = isJsonObject(object) && isJsonObject(object.metadata) ? object.metadata : {};
  const kind = isJsonObject(object) ? scalarText(object.kind) : '';
  const namespace = scalarText(metadata.namespace);
  return `${namespace === '' ? '' : `${namespace}/`}${kind}/${scalarText(metadata.name)}`;
}
