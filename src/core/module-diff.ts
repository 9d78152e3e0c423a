import type * as Diff from 'diff';
import type { JsonObject } from './json.ts';
import { loadOnUse } from './load-on-use.ts';
import { stringifyYaml } from './yaml/yaml.ts';

type ObjectAction = 'create' | 'update' | 'delete';

/** One object a delivery would change. */
export interface ObjectChange {
  readonly action: ObjectAction;
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  /** The compared fields before and after (docs/drift.md "Which fields count"); Secret values masked. */
  readonly before?: JsonObject;
  readonly after?: JsonObject;
}

export type ModuleAction = 'install' | 'upgrade' | 'uninstall' | 'unchanged';

export interface ModuleDiff {
  readonly module: string;
  readonly action: ModuleAction;
  readonly changes: readonly ObjectChange[];
}

/** Whether anything would change: `kaddon diff` exits 2 then, 0 otherwise (docs/drift.md "kaddon diff"). */
export function hasChanges(diffs: readonly ModuleDiff[]): boolean {
  return diffs.some((diff) => diff.action !== 'unchanged');
}

/** A unified diff of the compared fields' YAML; the object's whole YAML for a creation or deletion. */
function unifiedDiff(change: ObjectChange): string {
  const name = objectLabel(change);
  return yamlPatch(`live ${name}`, `rendered ${name}`, change.before, change.after);
}

/**
 * jsdiff, loaded when the first diff is printed (`kaddon diff`, the debug socket's `module diff`, a
 * drift report): an operator that prints none does not keep it in memory (0.6 MiB of heap).
 */
const diffLibrary = loadOnUse('diff') as () => typeof Diff;

/**
 * Two values as a unified diff of their YAML, 3 lines of context, the `---`/`+++` pair naming both
 * sides; an absent side is empty (a creation or a deletion).
 */
export function yamlPatch(
  beforeName: string,
  afterName: string,
  before: JsonObject | undefined,
  after: JsonObject | undefined,
): string {
  const text = (value: JsonObject | undefined): string => (value ? stringifyYaml(value) : '');
  const patch = diffLibrary().createTwoFilesPatch(
    beforeName,
    afterName,
    text(before),
    text(after),
    undefined,
    undefined,
    {
      context: 3,
    },
  );
  // The first line is the `===` separator of the library's format.
  return patch
    .split('\n')
    .filter((line) => !line.startsWith('====') && !line.startsWith('\\ No newline'))
    .join('\n')
    .trimEnd();
}

/** `Kind namespace/name`, or `Kind name` for a cluster-scoped object. */
export function objectLabel(change: Pick<ObjectChange, 'kind' | 'namespace' | 'name'>): string {
  return `${change.kind} ${change.namespace ? `${change.namespace}/` : ''}${change.name}`;
}

const SIGN: Readonly<Record<ObjectChange['action'], string>> = { create: '+', update: '~', delete: '-' };
const VERB: Readonly<Record<ObjectChange['action'], string>> = {
  create: 'created',
  update: 'changed',
  delete: 'deleted',
};

/** For a person: one block per module that would change, each object with its diff; colour on a terminal. */
export function formatDiffText(diffs: readonly ModuleDiff[], options: { colour: boolean }): string {
  const paint = (code: number, text: string): string =>
    options.colour ? `\x1b[${code}m${text}\x1b[0m` : text;
  const out: string[] = [];
  for (const diff of diffs) {
    if (diff.action === 'unchanged') continue;
    out.push(
      paint(
        1,
        `module ${diff.module}: would be ${diff.action === 'upgrade' ? 'upgraded' : `${diff.action}ed`}`,
      ),
    );
    for (const change of diff.changes) {
      out.push(`${SIGN[change.action]} ${objectLabel(change)} would be ${VERB[change.action]}`);
      for (const line of unifiedDiff(change).split('\n')) {
        const colour =
          line.startsWith('+') && !line.startsWith('+++')
            ? 32
            : line.startsWith('-') && !line.startsWith('---')
              ? 31
              : line.startsWith('@@')
                ? 36
                : 0;
        out.push(`    ${colour === 0 ? line : paint(colour, line)}`);
      }
    }
    out.push('');
  }
  return out.join('\n');
}

/** For CI bots: every module with its action, each change with its diff and the compared objects. */
export function formatDiffJson(diffs: readonly ModuleDiff[]): string {
  const modules = diffs.map((diff) => ({
    module: diff.module,
    action: diff.action,
    changes: diff.changes.map((change) => ({
      action: change.action,
      apiVersion: change.apiVersion,
      kind: change.kind,
      namespace: change.namespace,
      name: change.name,
      diff: unifiedDiff(change),
      ...(change.before ? { before: change.before } : {}),
      ...(change.after ? { after: change.after } : {}),
    })),
  }));
  return `${JSON.stringify({ changed: hasChanges(diffs), modules }, null, 2)}\n`;
}
