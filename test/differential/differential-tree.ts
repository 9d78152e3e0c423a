/**
 * Seeded modules trees and values edits for the delivery differential check (docs/testing.md
 * "Differential delivery check"): Kustomization modules with conditional components, objects that
 * move between modules, a Component module that deletes by label and patches by selector, generated
 * ConfigMaps with hashed names referred to from other modules, and modules whose slices empty.
 * Everything an edit changes is a module's section of the operator's ConfigMap, so one edit is one
 * ConfigMap write and its expected result is a fresh build with the same config values.
 */

/** mulberry32: a small seeded generator, so a seed names a tree and its edits exactly. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One Kustomization module's part in the values: what its conditional components do. */
interface ModuleState {
  /** Its own ConfigMap's value. */
  readonly value: string;
  /** Adds `<module>-part`. */
  readonly part: boolean;
  /** Labels its own ConfigMap `doomed`: the Component module deletes it. */
  readonly doom: boolean;
  /** Adds the CronJob `<module>-job`, whose env refers to the first module's generated ConfigMap. */
  readonly ref: boolean;
  /** The wanderers (`wander-<n>`) it holds: each is held by one module at most. */
  readonly holds: readonly number[];
  /** Its generated ConfigMap's literal (a new value is a new hashed name), when it has one. */
  readonly generated: string;
}

export interface GeneratedTree {
  readonly seed: number;
  /** Module names in order; the Component module last. */
  readonly modules: readonly string[];
  /** Which modules have a configMapGenerator of their own (never empty while it has one). */
  readonly withGenerator: ReadonlySet<string>;
  readonly wanderers: number;
  /** Files by path relative to the modules dir. */
  readonly files: Readonly<Record<string, string>>;
}

export type TreeState = ReadonlyMap<string, ModuleState>;

const COMPONENT = 'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n';
const POLICY_MODULE = 'policy';

function configMap(name: string, data: string): string {
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  ${data}\n`;
}

function cronJob(name: string, configMapName: string): string {
  return `apiVersion: batch/v1
kind: CronJob
metadata:
  name: ${name}
spec:
  schedule: "0 3 * * *"
  suspend: true
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
          - name: job
            image: example/job
            envFrom:
            - configMapRef:
                name: ${configMapName}
`;
}

/** A tree of 3 to 5 Kustomization modules and the Component module, from `seed`. */
export function generateTree(seed: number, namespace: string): GeneratedTree {
  const random = seededRandom(seed);
  const count = 3 + Math.floor(random() * 3);
  const wanderers = 1 + Math.floor(random() * 2);
  const modules = Array.from({ length: count }, (_, index) => `m${String(index)}`);
  const withGenerator = new Set(modules.filter((_, index) => index === 0 || random() < 0.3));
  const files: Record<string, string> = {};
  for (const [index, module] of modules.entries()) {
    const dir = `${String((index + 1) * 10).padStart(3, '0')}-${module}`;
    Object.assign(files, prefixed(dir, moduleFiles(module, namespace, wanderers, withGenerator.has(module))));
  }
  Object.assign(files, prefixed(`900-${POLICY_MODULE}`, policyFiles()));
  return { seed, modules: [...modules, POLICY_MODULE], withGenerator, wanderers, files };
}

function prefixed(dir: string, files: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(files).map(([file, text]) => [`${dir}/${file}`, text]));
}

function moduleFiles(
  module: string,
  namespace: string,
  wanderers: number,
  generator: boolean,
): Record<string, string> {
  const wandererComponents = Array.from(
    { length: wanderers },
    (_, n) => `- path: components/wander-${String(n)}\n  when: '.${module}.holds | any(. == ${String(n)})'\n`,
  ).join('');
  const generators =
    (generator ? `- name: ${module}-gen\n  literals: [VALUE=$(${module}.generated)]\n` : '') +
    (module === 'm0' ? '- name: shared-gen\n  literals: [SHARED=$(m0.generated)]\n' : '');
  const files: Record<string, string> = {
    'kustomization.yaml': `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: ${namespace}
resources: [own.yaml]
${generators ? `configMapGenerator:\n${generators}` : ''}components:
- path: components/part
  when: .${module}.part
- path: components/doom
  when: .${module}.doom
- path: components/ref
  when: .${module}.ref
${wandererComponents}`,
    'own.yaml': configMap(`${module}-own`, `value: "$(${module}.value)"`),
    'values.yaml': `${module}Enabled: true\n${module}:\n${yamlState(initialState(module), '  ')}`,
    'components/part/kustomization.yaml': `${COMPONENT}resources: [part.yaml]\n`,
    'components/part/part.yaml': configMap(`${module}-part`, 'part: "yes"'),
    'components/doom/kustomization.yaml': `${COMPONENT}patches:
- target: {kind: ConfigMap, name: ${module}-own}
  patch: |
    - op: add
      path: /metadata/labels
      value: {doomed: "true"}
`,
    'components/ref/kustomization.yaml': `${COMPONENT}resources: [job.yaml]\n`,
    'components/ref/job.yaml': cronJob(`${module}-job`, 'shared-gen'),
  };
  for (let n = 0; n < wanderers; n++) {
    files[`components/wander-${String(n)}/kustomization.yaml`] = `${COMPONENT}resources: [wanderer.yaml]\n`;
    files[`components/wander-${String(n)}/wanderer.yaml`] = configMap(
      `wander-${String(n)}`,
      `wanderer: "${String(n)}"`,
    );
  }
  return files;
}

/** The Component module: deletes what is labelled doomed, annotates every CronJob, labels everything. */
function policyFiles(): Record<string, string> {
  return {
    'kustomization.yaml': `${COMPONENT}labels:
- pairs: {platform: differential}
patches:
- target: {labelSelector: doomed=true}
  patch: |
    $patch: delete
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: doomed}
- target: {kind: CronJob}
  patch: |
    - op: add
      path: /metadata/annotations
      value: {policy: checked}
`,
    'values.yaml': `${POLICY_MODULE}Enabled: true\n`,
  };
}

function initialState(module: string): ModuleState {
  return { value: `${module}-1`, part: false, doom: false, ref: false, holds: [], generated: 'g1' };
}

/** The values every module starts with (its values.yaml), m0 holding the wanderers. */
export function startState(tree: GeneratedTree): TreeState {
  const state = new Map<string, ModuleState>();
  for (const module of tree.modules.filter((name) => name !== POLICY_MODULE))
    state.set(module, initialState(module));
  return state;
}

/**
 * One edit: one to three changes at once, each a module's toggle, a new value, a new generated
 * literal or a wanderer moving to another module (or to none). Several changes in one ConfigMap
 * write are what makes objects move in one edit.
 */
export function nextState(tree: GeneratedTree, state: TreeState, random: () => number): TreeState {
  const next = new Map(state);
  const modules = [...state.keys()];
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const changes = 1 + Math.floor(random() * 3);
  for (let change = 0; change < changes; change++) {
    const module = pick(modules);
    const current = next.get(module) ?? initialState(module);
    const kind = pick(['part', 'doom', 'ref', 'value', 'generated', 'move', 'move'] as const);
    if (kind === 'move') {
      const wanderer = Math.floor(random() * tree.wanderers);
      const to = random() < 0.2 ? undefined : pick(modules);
      for (const [name, held] of next)
        next.set(name, { ...held, holds: held.holds.filter((n) => n !== wanderer) });
      if (to !== undefined) {
        const holder = next.get(to) ?? initialState(to);
        next.set(to, { ...holder, holds: [...holder.holds, wanderer].sort() });
      }
    } else if (kind === 'value')
      next.set(module, { ...current, value: `${module}-${String(Math.floor(random() * 100))}` });
    else if (kind === 'generated')
      next.set(module, { ...current, generated: `g${String(Math.floor(random() * 100))}` });
    else next.set(module, { ...current, [kind]: !current[kind] });
  }
  return next;
}

/** The operator's ConfigMap data for a state: one YAML section per module. */
export function configMapData(state: TreeState): Record<string, string> {
  return Object.fromEntries([...state].map(([module, values]) => [module, yamlState(values, '')]));
}

function yamlState(values: ModuleState, indent: string): string {
  return [
    `value: "${values.value}"`,
    `part: ${String(values.part)}`,
    `doom: ${String(values.doom)}`,
    `ref: ${String(values.ref)}`,
    `holds: [${values.holds.join(', ')}]`,
    `generated: "${values.generated}"`,
  ]
    .map((line) => `${indent}${line}\n`)
    .join('');
}
