import path from 'node:path';
import { deepEqual, isJsonObject, scalarText, type JsonObject, type JsonValue } from '../../src/core/json.ts';
import { parseConfigValues } from '../../src/core/values.ts';
import { KubeApiError, type KubeClient } from '../../src/delivery/kube-client.ts';
import { manifestObjects } from '../../src/delivery/native/release-manifest.ts';
import { ReleaseRecords } from '../../src/delivery/native/release-records.ts';
import type { JqEngine } from '../../src/jq/jq-engine.ts';
import { buildTree } from '../../src/runtime/build/build-tree.ts';
import { setOperatorConfig, waitReady, type OperatorEnvironment } from '../operator/operator-e2e-kit.ts';
import {
  configMapData,
  generateTree,
  nextState,
  seededRandom,
  startState,
  type GeneratedTree,
  type TreeState,
} from './differential-tree.ts';

/**
 * The delivery differential check (docs/testing.md "Differential delivery check"): a generated tree
 * runs in `kaddon operator`; after each values edit has settled, the release records, the live
 * objects and a fresh `kaddon build` of the same values must agree, and no object that stays in the
 * tree may have been deleted on the way (its uid is kept).
 */

export type Delivery = 'native' | 'helm';

export interface DifferentialRun {
  readonly env: OperatorEnvironment;
  readonly jq: JqEngine;
  readonly delivery: Delivery;
  /** How long an edit may take to settle before its differences are reported. */
  readonly settleMs?: number;
}

/** A difference found after an edit settled, with what reproduces it. */
export interface DifferentialFailure {
  readonly seed: number;
  readonly delivery: Delivery;
  /** The edit (1 = the first after the start state) whose result differed. */
  readonly edit: number;
  readonly differences: readonly string[];
  readonly from: Record<string, string>;
  readonly to: Record<string, string>;
  /** Whether one edit from `from` to `to`, on a fresh namespace, shows it again. */
  readonly reproducedInOneEdit?: boolean;
}

const KINDS = [
  { kind: 'ConfigMap', path: (ns: string) => `/api/v1/namespaces/${ns}/configmaps` },
  { kind: 'CronJob', path: (ns: string) => `/apis/batch/v1/namespaces/${ns}/cronjobs` },
] as const;

/** Runs one generated tree through `edits` edits; the first difference, or undefined. */
export async function checkTree(
  run: DifferentialRun,
  seed: number,
  edits: number,
): Promise<DifferentialFailure | undefined> {
  const namespace = `diff-${run.delivery}-${String(seed)}`;
  const tree = generateTree(seed, namespace);
  const random = seededRandom(seed ^ 0x5eed);
  const states: TreeState[] = [startState(tree)];
  for (let edit = 0; edit < edits; edit++)
    states.push(nextState(tree, states.at(-1) ?? startState(tree), random));
  const failure = await runStates(run, tree, namespace, states);
  if (failure === undefined) return undefined;
  // The smallest reproduction: the failing edit alone, from its start state on a fresh namespace.
  const again = await runStates(run, tree, `${namespace}-again`, [
    states[failure.edit - 1] ?? startState(tree),
    states[failure.edit] ?? startState(tree),
  ]);
  return { ...failure, reproducedInOneEdit: again !== undefined && again.edit === 1 };
}

/** Starts an operator on the first state, then applies the others one by one. */
async function runStates(
  run: DifferentialRun,
  tree: GeneratedTree,
  namespace: string,
  states: readonly TreeState[],
): Promise<DifferentialFailure | undefined> {
  const { env } = run;
  const modulesDir = path.join(env.tree.root, namespace, 'modules');
  for (const [file, text] of Object.entries(tree.files))
    env.tree.write(path.join(namespace, 'modules', path.dirname(file)), { [path.basename(file)]: text });
  await env.api.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
  });
  const [first = startState(tree)] = states;
  await setOperatorConfig(env.api, namespace, configMapData(first));
  const operator = env.startOperator({
    modulesDir,
    forceKillAfterDelay: 20_000,
    extraEnv: { KADDON_DELIVERY: run.delivery, ADDON_OPERATOR_NAMESPACE: namespace },
  });
  try {
    await waitReady(operator, env.port, 120_000);
    let uids = new Map<string, string>();
    for (const [edit, state] of states.entries()) {
      if (edit > 0) await setOperatorConfig(env.api, namespace, configMapData(state));
      const settled = await settle(run, modulesDir, namespace, state, uids);
      if (settled.differences.length > 0)
        return {
          seed: tree.seed,
          delivery: run.delivery,
          edit,
          differences: settled.differences,
          from: configMapData(states[edit - 1] ?? state),
          to: configMapData(state),
        };
      uids = settled.uids;
    }
    return undefined;
  } finally {
    operator.process.kill('SIGTERM');
    await operator.process;
  }
}

/** Compares until nothing differs or the time is up; then what differs, and the live objects' uids. */
async function settle(
  run: DifferentialRun,
  modulesDir: string,
  namespace: string,
  state: TreeState,
  uidsBefore: ReadonlyMap<string, string>,
): Promise<{ differences: string[]; uids: Map<string, string> }> {
  const expected = await expectedSlices(run.jq, modulesDir, state);
  const deadline = Date.now() + (run.settleMs ?? 45_000);
  for (;;) {
    const found = await compare(run.env.api, namespace, expected, uidsBefore);
    // A recreated object does not heal by waiting: it was deleted on the way.
    const recreated = found.differences.filter((difference) => difference.startsWith('recreated'));
    if (found.differences.length === 0 || recreated.length > 0 || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

/** A fresh build of the tree with the state as config values: each module's expected objects by key. */
async function expectedSlices(
  jq: JqEngine,
  modulesDir: string,
  state: TreeState,
): Promise<Map<string, Map<string, JsonObject>>> {
  const result = await buildTree({
    dirs: [modulesDir],
    config: parseConfigValues(configMapData(state), 'ConfigMap/addon-operator'),
    globalHooksDir: undefined,
    sharedComponentRoots: [],
    jq,
  });
  if (result.failed.size > 0)
    throw new Error(
      `the generated tree does not build: ${[...result.failed.values()].map(String).join('; ')}`,
    );
  const slices = new Map<string, Map<string, JsonObject>>();
  for (const [module, resources] of result.rendered.slices)
    slices.set(module, new Map(resources.map((resource) => [keyOf(resource.obj), resource.obj])));
  return slices;
}

function keyOf(object: JsonObject): string {
  const metadata = isJsonObject(object.metadata) ? object.metadata : {};
  return `${scalarText(object.kind)} ${scalarText(metadata.namespace)}/${scalarText(metadata.name)}`;
}

/** What differs between the releases, the live objects and the expected slices now. */
async function compare(
  api: KubeClient,
  namespace: string,
  expected: ReadonlyMap<string, ReadonlyMap<string, JsonObject>>,
  uidsBefore: ReadonlyMap<string, string>,
): Promise<{ differences: string[]; uids: Map<string, string> }> {
  const differences: string[] = [];
  const records = new ReleaseRecords(api);
  for (const [module, objects] of expected) {
    const last = (await records.history(module, namespace)).at(-1);
    if (last === undefined) {
      if (objects.size > 0)
        differences.push(`release ${module}: absent, expected ${String(objects.size)} object(s)`);
      continue;
    }
    if (last.info.status !== 'deployed')
      differences.push(`release ${module}: revision ${String(last.version)} is ${last.info.status}`);
    const stored = new Map(manifestObjects(last.manifest, module).map((object) => [keyOf(object), object]));
    for (const [key, object] of objects)
      if (!deepEqual(stored.get(key), object))
        differences.push(`release ${module}: ${key} ${stored.has(key) ? 'differs' : 'missing'}`);
    for (const key of stored.keys())
      if (!objects.has(key))
        differences.push(`release ${module}: holds ${key}, which the tree no longer renders for it`);
  }
  const wanted = new Map<string, { module: string; object: JsonObject }>();
  for (const [module, objects] of expected)
    for (const [key, object] of objects) wanted.set(key, { module, object });
  const uids = new Map<string, string>();
  for (const { kind, path: collection } of KINDS) {
    const list = await api.request('GET', collection(namespace), {
      query: { labelSelector: 'app.kubernetes.io/managed-by=Helm' },
    });
    for (const item of Array.isArray(list.items) ? list.items.filter(isJsonObject) : []) {
      const live: JsonObject = { ...item, kind };
      const key = keyOf(live);
      const metadata = isJsonObject(live.metadata) ? live.metadata : {};
      const uid = scalarText(metadata.uid);
      uids.set(key, uid);
      const want = wanted.get(key);
      if (want === undefined) {
        differences.push(`stale ${key} in the cluster`);
        continue;
      }
      wanted.delete(key);
      const before = uidsBefore.get(key);
      if (before !== undefined && before !== uid)
        differences.push(`recreated ${key}: deleted and created again`);
      differences.push(...liveDifferences(key, want.module, want.object, live));
    }
  }
  for (const [key, { module }] of wanted) {
    const gone = await isAbsent(api, namespace, key);
    if (gone) differences.push(`missing ${key} of ${module} in the cluster`);
  }
  return { differences, uids };
}

/** The fields the tree sets that the live object does not hold as rendered. */
function liveDifferences(key: string, module: string, want: JsonObject, live: JsonObject): string[] {
  const out: string[] = [];
  const wantMeta = isJsonObject(want.metadata) ? want.metadata : {};
  const liveMeta = isJsonObject(live.metadata) ? live.metadata : {};
  const annotations = isJsonObject(liveMeta.annotations) ? liveMeta.annotations : {};
  if (annotations['meta.helm.sh/release-name'] !== module)
    out.push(
      `${key}: owned by release ${scalarText(annotations['meta.helm.sh/release-name'])}, expected ${module}`,
    );
  for (const field of ['labels', 'annotations'] as const) {
    const wanted = isJsonObject(wantMeta[field]) ? wantMeta[field] : {};
    const held = isJsonObject(liveMeta[field]) ? liveMeta[field] : {};
    for (const [name, value] of Object.entries(wanted))
      if (held[name] !== value)
        out.push(`${key}: ${field}.${name} is ${scalarText(held[name])}, expected ${scalarText(value)}`);
  }
  if (want.data !== undefined && !deepEqual(live.data, want.data)) out.push(`${key}: data differs`);
  if (want.spec !== undefined && !isSubset(want.spec, live.spec)) out.push(`${key}: spec differs`);
  return out;
}

/** Whether every field of `want` is in `live` with the same value (the server adds defaults). */
function isSubset(want: JsonValue, live: JsonValue | undefined): boolean {
  if (Array.isArray(want))
    return (
      Array.isArray(live) && want.length === live.length && want.every((item, i) => isSubset(item, live[i]))
    );
  if (isJsonObject(want))
    return isJsonObject(live) && Object.entries(want).every(([name, value]) => isSubset(value, live[name]));
  return want === live;
}

async function isAbsent(api: KubeClient, namespace: string, key: string): Promise<boolean> {
  const [kind = '', id = ''] = key.split(' ');
  const name = id.split('/')[1] ?? '';
  const collection = KINDS.find((entry) => entry.kind === kind)?.path(namespace);
  if (collection === undefined) return true;
  try {
    await api.request('GET', `${collection}/${name}`);
    return false;
  } catch (error: unknown) {
    if (error instanceof KubeApiError && error.status === 404) return true;
    throw error;
  }
}

/** A failure as a person reads it: the seed and edit, what differed, and the two states. */
export function describeFailure(failure: DifferentialFailure): string {
  const section = (data: Record<string, string>): string =>
    Object.entries(data)
      .map(([module, text]) => `  ${module}:\n${text.replace(/^/gmu, '    ')}`)
      .join('\n');
  return [
    `differential check failed: seed ${String(failure.seed)}, KADDON_DELIVERY=${failure.delivery}, edit ${String(failure.edit)}`,
    ...failure.differences.slice(0, 20).map((difference) => `  - ${difference}`),
    failure.reproducedInOneEdit === true
      ? 'reproduced by this one edit on a fresh namespace (the tree: generateTree(seed) in test/differential/differential-tree.ts):'
      : 'not reproduced by the edit alone: replay the seed from its start state. The edit:',
    'from ConfigMap data:',
    section(failure.from),
    'to ConfigMap data:',
    section(failure.to),
  ].join('\n');
}
