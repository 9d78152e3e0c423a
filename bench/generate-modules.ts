import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { moduleValuesKey } from '../src/core/module-name.ts';
import { writeManifest, writeTextFile, type Manifest } from './manifest-file.ts';

/** One generated module and what a correct build prints for it. */
interface GeneratedModule {
  readonly name: string;
  readonly enabled: boolean;
  /** Objects in its slice of the output; 0 when disabled. */
  readonly objects: number;
}

/** A generated modules tree in a temporary directory. */
export interface GeneratedModulesTree {
  /** The temporary directory holding everything; remove it with removeModulesTree. */
  readonly root: string;
  /** The modules directory to build. */
  readonly modulesDir: string;
  /** Every module in module order. */
  readonly modules: readonly GeneratedModule[];
}

/** The cross-cutting modules (kind: Component) that follow the app modules. */
export const CROSS_CUTTING_MODULES = 2;
const COMPONENT = { apiVersion: 'kustomize.config.k8s.io/v1alpha1', kind: 'Component' };
const PART_OF = 'app.kubernetes.io/part-of=bench-platform';
const GLOBAL_VALUES = {
  registry: 'registry.example.com/platform',
  domain: 'apps.example.com',
  clusterName: 'bench-cluster',
  environment: 'production',
  tlsSecret: 'wildcard-tls',
};
const WORDS = ['billing', 'catalog', 'checkout', 'search', 'orders', 'ledger', 'shipping', 'profile'];
const ROLES = ['api', 'worker', 'gateway'];

export const isDisabled = (index: number): boolean => index % 10 === 7;
const isEnabledInModuleValues = (index: number): boolean => index % 5 === 2;
const hasIngress = (index: number): boolean => index % 3 === 0;
const isHighlyAvailable = (index: number): boolean => index % 4 === 1;
const isScraped = (index: number): boolean => index % 3 === 1;
const hasRootSection = (index: number): boolean => index % 4 === 0;

export const teamOf = (index: number): string => `team-${String(index % 8)}`;
export const appName = (index: number): string =>
  `${WORDS[index % WORDS.length]!}-${ROLES[index % ROLES.length]!}${String(index + 1)}`;

/** Deployment, Service and ConfigMap, an Ingress for some, a PodDisruptionBudget when highly available. */
function countAppObjects(index: number): number {
  return 3 + Number(hasIngress(index)) + Number(isHighlyAvailable(index));
}

/** Writes `modules` modules (app modules, then two cross-cutting ones) under os.tmpdir(). */
export function generateModulesTree(modules: number): GeneratedModulesTree {
  const root = mkdtempSync(path.join(os.tmpdir(), 'kaddon-build-bench-'));
  const modulesDir = path.join(root, 'modules');
  const apps = Math.max(1, modules - CROSS_CUTTING_MODULES);
  // Fixed-width prefixes, and the cross-cutting modules' orders (900, or 9000 …) above every app module's.
  const width = apps < 900 ? 3 : String(apps).length + 1;
  const generated = Array.from({ length: apps }, (_, index) => writeAppModule(modulesDir, index, width));
  const order = 9 * 10 ** (width - 1);
  generated.push(writePlatformPolicy(modulesDir, order), writeWorkloadDefaults(modulesDir, order + 10));
  writeManifest(modulesDir, 'values.yaml', rootValues(apps));
  return { root, modulesDir, modules: generated };
}

export function removeModulesTree(tree: GeneratedModulesTree): void {
  rmSync(tree.root, { recursive: true, force: true });
}

/** Globals, most `<module>Enabled` flags, and some modules' sections (merged under their values.yaml). */
function rootValues(apps: number): Manifest {
  const values: Manifest = { global: GLOBAL_VALUES, platformPolicyEnabled: true };
  for (let index = 0; index < apps; index++) {
    const key = moduleValuesKey(appName(index));
    if (!isEnabledInModuleValues(index)) values[`${key}Enabled`] = !isDisabled(index);
    if (hasRootSection(index)) values[key] = { owner: teamOf(index) };
  }
  return values;
}

function writeAppModule(modulesDir: string, index: number, width: number): GeneratedModule {
  const name = appName(index);
  const dir = path.join(modulesDir, `${String(index + 1).padStart(width, '0')}-${name}`);
  const key = moduleValuesKey(name);
  writeTextFile(dir, 'deployment.yaml', deployment(name, key));
  writeManifest(dir, 'service.yaml', service(name, key));
  if (hasIngress(index)) writeManifest(dir, 'ingress.yaml', ingress(name));
  writeLocalComponents(dir, name, key);
  writeManifest(dir, 'values.yaml', moduleValues(index, key));
  writeManifest(dir, 'kustomization.yaml', appKustomization(index, name, key));
  const enabled = !isDisabled(index);
  return { name, enabled, objects: enabled ? countAppObjects(index) : 0 };
}

/** An isolated module (kind: Kustomization): built alone, then merged into the accumulated set. */
function appKustomization(index: number, name: string, key: string): Manifest {
  const literals = [`LOG_LEVEL=$(${key}.logLevel)`, `OWNER=$(${key}.owner)`, 'CLUSTER=$(global.clusterName)'];
  return {
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    namespace: teamOf(index),
    labels: [
      { pairs: { 'app.kubernetes.io/name': name }, includeSelectors: true },
      { pairs: { 'app.kubernetes.io/part-of': 'bench-platform' } },
    ],
    resources: ['deployment.yaml', 'service.yaml', ...(hasIngress(index) ? ['ingress.yaml'] : [])],
    configMapGenerator: [{ name: `${name}-config`, literals }],
    components: appComponents(index, key),
  };
}

function appComponents(index: number, key: string): Manifest[] {
  const scrape = isScraped(index)
    ? { shared: 'prometheus-scrape' }
    : { shared: 'prometheus-scrape', when: '.global.enabledModules | index("prometheus") != null' };
  return [
    { shared: 'high-availability', when: `.${key}.highAvailability` },
    { path: 'components/pdb', when: `.${key}.highAvailability and .global.environment == "production"` },
    scrape,
    { path: 'components/debug', when: `.${key}.debug` },
  ];
}

function moduleValues(index: number, key: string): Manifest {
  const values: Manifest = {
    [key]: {
      replicas: 1 + (index % 3),
      port: 8000 + index,
      version: `1.${String(index % 10)}.0`,
      logLevel: 'info',
      serviceLinks: false,
      highAvailability: isHighlyAvailable(index),
      debug: index % 6 === 5,
      minAvailable: 2,
      ...(hasRootSection(index) ? {} : { owner: teamOf(index) }),
    },
  };
  if (isEnabledInModuleValues(index)) values[`${key}Enabled`] = !isDisabled(index);
  return values;
}

/** Written as text, partly in flow style: `yaml` would not quote the references that must stay strings. */
function deployment(name: string, key: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: $(${key}.replicas)
  template:
    spec:
      enableServiceLinks: $(${key}.serviceLinks)
      containers:
      - name: app
        image: $(global.registry)/${name}:$(${key}.version)
        args: ["--listen=:$(${key}.port)", "--cluster=$(global.clusterName)"]
        ports: [{ name: http, containerPort: $(${key}.port) }]
        env:
        - { name: PORT, value: "$(${key}.port)" }
        - { name: PUBLIC_URL, value: "https://${name}.$(global.domain)" }
        envFrom: [{ configMapRef: { name: ${name}-config } }]
`;
}

function service(name: string, key: string): Manifest {
  const spec = { ports: [{ name: 'http', port: `$(${key}.port)`, targetPort: 'http' }] };
  return { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec };
}

function ingress(name: string): Manifest {
  const host = `${name}.$(global.domain)`;
  const backend = { service: { name, port: { name: 'http' } } };
  const spec = {
    tls: [{ hosts: [host], secretName: '$(global.tlsSecret)' }],
    rules: [{ host, http: { paths: [{ path: '/', pathType: 'Prefix', backend }] } }],
  };
  return { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name }, spec };
}

/** components/pdb adds a PodDisruptionBudget; components/debug patches the module's Deployment. */
function writeLocalComponents(dir: string, name: string, key: string): void {
  const selector = { matchLabels: { 'app.kubernetes.io/name': name } };
  const spec = { minAvailable: `$(${key}.minAvailable)`, selector };
  const pdbDir = path.join(dir, 'components', 'pdb');
  writeManifest(pdbDir, 'pdb.yaml', {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name },
    spec,
  });
  writeManifest(pdbDir, 'kustomization.yaml', { ...COMPONENT, resources: ['pdb.yaml'] });
  const env = [{ name: 'LOG_LEVEL', value: 'debug' }];
  const patch = deploymentPatch(name, { template: { spec: { containers: [{ name: 'app', env }] } } });
  const patches = [{ target: { kind: 'Deployment', name }, patch }];
  writeManifest(path.join(dir, 'components', 'debug'), 'kustomization.yaml', { ...COMPONENT, patches });
}

/** Labels everything before it, and patches every app Deployment found by a label selector. */
function writePlatformPolicy(modulesDir: string, order: number): GeneratedModule {
  const dir = path.join(modulesDir, `${String(order)}-platform-policy`);
  const values = { team: 'platform', priorityClass: 'platform-high', priority: 100000, restricted: true };
  writeManifest(dir, 'values.yaml', { platformPolicy: values });
  const metadata = { name: '$(platformPolicy.priorityClass)' };
  const priorityClass = { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata };
  writeManifest(dir, 'priority-class.yaml', { ...priorityClass, value: '$(platformPolicy.priority)' });
  const spec = { priorityClassName: '$(platformPolicy.priorityClass)' };
  const patch = deploymentPatch('any', { template: { spec } });
  writeManifest(dir, 'kustomization.yaml', {
    ...COMPONENT,
    labels: [{ pairs: { 'platform.example.com/owner': '$(platformPolicy.team)' } }],
    resources: ['priority-class.yaml'],
    components: [{ shared: 'restricted-pod-security', when: '.platformPolicy.restricted' }],
    patches: [{ target: { group: 'apps', kind: 'Deployment', labelSelector: PART_OF }, patch }],
  });
  return { name: 'platform-policy', enabled: true, objects: 1 };
}

/** Enabled by its own values.yaml; annotates everything and sets Deployment defaults. */
function writeWorkloadDefaults(modulesDir: string, order: number): GeneratedModule {
  const dir = path.join(modulesDir, `${String(order)}-workload-defaults`);
  writeManifest(dir, 'values.yaml', {
    workloadDefaultsEnabled: true,
    workloadDefaults: { revisionHistoryLimit: 5, minReadySeconds: 10, costCenter: 'cc-4711' },
  });
  const patch = deploymentPatch('any', {
    revisionHistoryLimit: '$(workloadDefaults.revisionHistoryLimit)',
    minReadySeconds: '$(workloadDefaults.minReadySeconds)',
  });
  writeManifest(dir, 'kustomization.yaml', {
    ...COMPONENT,
    commonAnnotations: { 'platform.example.com/cost-center': '$(workloadDefaults.costCenter)' },
    patches: [{ target: { kind: 'Deployment', labelSelector: PART_OF }, patch }],
  });
  return { name: 'workload-defaults', enabled: true, objects: 0 };
}

/** A strategic merge patch as text: `$(var)` references in it are expanded before it is parsed. */
function deploymentPatch(name: string, spec: Manifest): string {
  return stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name }, spec });
}
