import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { parseAllDocuments } from 'yaml';
import { runCli } from '../run-cli.ts';
import { buildHostileTree, describeHostileTree, hostileTree } from './hostile-arbitrary.ts';

/**
 * Random kustomization directories from a small grammar of what kustomizations hold (resources,
 * prefixes, namespaces, labels, patches, generators), with broken ones mixed in: a field kustomize
 * does not know, a missing file, text that is not YAML, a patch naming nothing.
 */
export type TreeFiles = Record<string, string>;

const name = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}[a-z0-9]$/);
// Values start with a letter: a value such as "1e310" is printed quoted by kaddon and plain by
// kustomize (docs/differences-from-kustomize.md "Output text"), which a YAML 1.2 reader then reads
// as a number on one side only. The fuzz run found it; the difference is in the text alone.
const labelValue = fc.stringMatching(/^[a-z][a-z0-9]{0,7}$/);

const configMap = fc.record({
  name,
  data: fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), labelValue, { maxKeys: 3 }),
});
const deployment = fc.record({
  name,
  replicas: fc.integer({ min: 0, max: 5 }),
  image: fc.constantFrom('nginx', 'busybox:1.36', 'registry.k8s.io/pause:3.9'),
});

function configMapYaml(cm: { name: string; data: Record<string, string> }): string {
  const data = Object.entries(cm.data).map(([key, value]) => `  ${key}: "${value}"`);
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${cm.name}\n${data.length ? `data:\n${data.join('\n')}\n` : ''}`;
}

function deploymentYaml(d: { name: string; replicas: number; image: string }): string {
  return `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${d.name}\nspec:\n  replicas: ${String(d.replicas)}\n  selector:\n    matchLabels:\n      app: ${d.name}\n  template:\n    metadata:\n      labels:\n        app: ${d.name}\n    spec:\n      containers:\n      - name: main\n        image: ${d.image}\n`;
}

const breakage = fc.constantFrom(
  undefined,
  undefined,
  undefined,
  'unknown-field',
  'missing-file',
  'not-yaml',
  'dangling-patch',
  'duplicate-resource',
);

/** One kustomization directory's files. */
export const kustomizationTree: fc.Arbitrary<TreeFiles> = fc
  .record({
    configMaps: fc.uniqueArray(configMap, { selector: (cm) => cm.name, maxLength: 3 }),
    deployments: fc.uniqueArray(deployment, { selector: (d) => d.name, maxLength: 2 }),
    namePrefix: fc.option(name, { nil: undefined }),
    namespace: fc.option(name, { nil: undefined }),
    labels: fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), labelValue, { maxKeys: 2 }),
    patchReplicas: fc.option(fc.integer({ min: 0, max: 9 }), { nil: undefined }),
    generator: fc.option(fc.record({ name, literal: labelValue }), { nil: undefined }),
    breakage,
  })
  .map((spec) => {
    const files: TreeFiles = {};
    const resources: string[] = [];
    spec.configMaps.forEach((cm, i) => {
      files[`cm-${String(i)}.yaml`] = configMapYaml(cm);
      resources.push(`cm-${String(i)}.yaml`);
    });
    spec.deployments.forEach((d, i) => {
      files[`deploy-${String(i)}.yaml`] = deploymentYaml(d);
      resources.push(`deploy-${String(i)}.yaml`);
    });
    if (spec.breakage === 'missing-file') resources.push('absent.yaml');
    if (spec.breakage === 'duplicate-resource' && resources[0]) resources.push(resources[0]);
    const lines = [`resources:\n${resources.map((r) => `- ${r}`).join('\n') || '[]'}`];
    if (spec.namePrefix) lines.push(`namePrefix: ${spec.namePrefix}-`);
    if (spec.namespace) lines.push(`namespace: ${spec.namespace}`);
    const labels = Object.entries(spec.labels);
    if (labels.length) lines.push(`commonLabels:\n${labels.map(([k, v]) => `  ${k}: "${v}"`).join('\n')}`);
    const first = spec.deployments[0];
    if (spec.patchReplicas !== undefined && first)
      lines.push(
        `patches:\n- target:\n    kind: Deployment\n    name: ${first.name}\n  patch: |-\n    - op: replace\n      path: /spec/replicas\n      value: ${String(spec.patchReplicas)}`,
      );
    if (spec.breakage === 'dangling-patch')
      lines.push(
        'patchesStrategicMerge:\n- |-\n  apiVersion: v1\n  kind: Service\n  metadata:\n    name: nowhere\n',
      );
    if (spec.generator)
      lines.push(
        `configMapGenerator:\n- name: ${spec.generator.name}\n  literals:\n  - key=${spec.generator.literal}`,
      );
    if (spec.breakage === 'unknown-field') lines.push('namePrefixx: typo-');
    files['kustomization.yaml'] =
      spec.breakage === 'not-yaml' ? `${lines.join('\n')}\n  : [\n` : `${lines.join('\n')}\n`;
    return files;
  });

export interface CaseOutcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** kubectl's objects for the same directory, when kubectl is here and built it. */
  readonly kubectl?: unknown[];
}

/** Writes the tree, builds it with kaddon (and kubectl, if asked and installed), removes it. */
export async function buildBoth(files: TreeFiles, withKubectl: boolean): Promise<CaseOutcome> {
  const dir = mkdtempSync(path.join(tmpdir(), 'kaddon-generated-'));
  try {
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    }
    const run = await runCli(['kustomize', dir]);
    if (!withKubectl) return run;
    try {
      const out = execFileSync('kubectl', ['kustomize', dir], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
        timeout: 30_000,
      });
      return { ...run, kubectl: objectsOf(out) };
    } catch {
      return run;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function objectsOf(text: string): unknown[] {
  return parseAllDocuments(text)
    .map((doc) => doc.toJS() as unknown)
    .filter((value) => value !== null && value !== undefined);
}

/**
 * The property both the test and `npm run fuzz` check: every generated tree, of each grammar,
 * hostile ones (hostile-arbitrary.ts) included.
 */
export function generatedInputsBehave(withKubectl: boolean) {
  return fc.asyncProperty(
    fc.oneof(
      kustomizationTree.map((files) => ({ kind: 'kustomization' as const, files })),
      modulesTree.map((files) => ({ kind: 'modules' as const, files })),
      hostileTree.map((files) => ({ kind: 'hostile' as const, files })),
    ),
    async (input) => {
      if (input.kind === 'hostile')
        checkOutcome(describeHostileTree(input.files), await buildHostileTree(input.files));
      else if (input.kind === 'modules') checkOutcome(input.files, await buildModulesTree(input.files));
      else checkOutcome(input.files, await buildBoth(input.files, withKubectl));
    },
  );
}

/** The properties every generated tree must have; throws an Error saying which failed. */
export function checkOutcome(files: TreeFiles, outcome: CaseOutcome): void {
  const shown = () => JSON.stringify(files, null, 1);
  if (outcome.code !== 0 && outcome.code !== 1)
    throw new Error(`exit ${String(outcome.code)}, not 0 or 1:\n${outcome.stderr}\n${shown()}`);
  if (/internal error|\n\s+at /.test(outcome.stderr))
    throw new Error(`a stack trace:\n${outcome.stderr}\n${shown()}`);
  if (outcome.code === 1 && !/\.yaml|\/modules\b|kaddon-generated/.test(outcome.stderr))
    throw new Error(`an error naming no file:\n${outcome.stderr}\n${shown()}`);
  if (outcome.code === 0 && outcome.kubectl !== undefined) {
    const ours = JSON.stringify(objectsOf(outcome.stdout));
    const theirs = JSON.stringify(outcome.kubectl);
    if (ours !== theirs)
      throw new Error(
        `objects differ from kubectl kustomize:\nkaddon: ${ours}\nkubectl: ${theirs}\n${shown()}`,
      );
  }
}

/**
 * Random modules trees: one to three modules, each a Kustomization or a Component, whose ConfigMaps
 * read `$(var)` references from values; values files with enabled flags and sections; broken ones
 * mixed in (a section that is a list, an enabled flag that is not a boolean, a reference into a list,
 * a module with no kustomization file).
 */
export const modulesTree: fc.Arbitrary<TreeFiles> = fc
  .record({
    modules: fc.uniqueArray(
      fc.record({
        name,
        component: fc.boolean(),
        enabled: fc.constantFrom('true', 'false', 'true', '"maybe"'),
        greeting: labelValue,
        replicas: fc.integer({ min: 0, max: 5 }),
      }),
      { selector: (module) => module.name, minLength: 1, maxLength: 3 },
    ),
    breakage: fc.constantFrom(undefined, undefined, 'list-section', 'list-reference', 'no-kustomization'),
  })
  .map(({ modules, breakage }) => {
    const files: TreeFiles = {};
    const root: string[] = ['global:\n  cluster: prod'];
    modules.forEach((module, index) => {
      const key = module.name.replace(/-([a-z0-9])/g, (_whole, c: string) => c.toUpperCase());
      const dir = `modules/${String(10 * (index + 1)).padStart(3, '0')}-${module.name}`;
      root.push(`${key}Enabled: ${module.enabled}`);
      const section =
        breakage === 'list-section' && index === 0
          ? `${key}:\n- ${module.greeting}`
          : `${key}:\n  greeting: ${module.greeting}\n  replicas: ${String(module.replicas)}\n  list: [a, b]`;
      root.push(section);
      if (breakage === 'no-kustomization' && index === 0) return;
      files[`${dir}/kustomization.yaml`] = module.component
        ? 'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources: [cm.yaml]\n'
        : 'resources: [cm.yaml]\n';
      const reference = breakage === 'list-reference' ? `"x $(${key}.list) y"` : `"$(${key}.greeting)"`;
      files[`${dir}/cm.yaml`] =
        `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${module.name}-settings\ndata:\n  greeting: ${reference}\n  replicas: "$(${key}.replicas)"\n  cluster: $(global.cluster)\n`;
    });
    files['modules/values.yaml'] = `${root.join('\n')}\n`;
    return files;
  });

/** Writes a modules tree and runs `kaddon build` on it. */
export async function buildModulesTree(files: TreeFiles): Promise<CaseOutcome> {
  const dir = mkdtempSync(path.join(tmpdir(), 'kaddon-generated-tree-'));
  try {
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    }
    return await runCli(['build', path.join(dir, 'modules')]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
