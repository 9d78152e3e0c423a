import { stopOnSignals, throwIfStopped } from './stop-on-signals.ts';
import { tmpdir } from 'node:os';
import { parseArgs } from 'node:util';
import { crdFilterPrefixes, hookEnv, resolveNamespace } from '../config/operator-config.ts';
import { SettingReader } from '../config/setting-reader.ts';
import { rbacObjects } from '../core/rbac-rules.ts';
import { EMPTY_CONFIG_VALUES, parseConfigValues } from '../core/values.ts';
import { parseYamlDocument, stringifyYaml } from '../core/yaml/yaml.ts';
import { createHookRunDeps } from '../hooks/run/run-hook-deps.ts';
import { hookEnvironment } from '../hooks/run/run-hook-env.ts';
import { loadJqEngine } from '../jq/jq-engine.ts';
import { buildTree } from '../runtime/build/build-tree.ts';
import { componentRoots, splitPaths } from '../runtime/build/component-roots.ts';
import type { DiscoverKind } from '../runtime/rbac-needs.ts';
import { rbacNeeds } from '../runtime/rbac-needs.ts';
import { buildChartsOptions } from './build-helm.ts';
import { stderrLogger, type CliIo } from './cli-io.ts';
import { jqTimeoutMs } from './jq-timeout.ts';
import { UsageError } from './usage-error.ts';
import { existsSync, readFileSync } from 'node:fs';
import { ValuesError } from '../core/values.ts';

export const rbacUsage = `Usage: kaddon rbac [MODULES_DIR...] [options]

Prints the ClusterRole and Roles \`kaddon operator\` needs for this modules tree, bound to its
service account, ready for \`kubectl apply -f -\` (docs/rbac.md): its ConfigMap, Helm's release
Secrets and the HA Lease in its namespace; get/list/watch of every kind a hook binding watches;
create/get/list/update/patch/delete of every kind an enabled module delivers, in the namespaces it
delivers to; the CRDs of crds/; escalate and bind only when modules deliver RBAC objects. Hooks are
run with --config to read their bindings. Kinds are resolved from the modules' crds/, the built-in
kinds, and with --kube-config the cluster's discovery.

Options:
  --namespace NS           the operator's namespace (default $ADDON_OPERATOR_NAMESPACE, else kaddon)
  --service-account NAME   the operator's service account (default kaddon)
  --name NAME              the name of the roles and bindings (default: the service account's)
  --values FILE            extra values (the layout of modules/values.yaml)
  --config-values FILE     config values (the ConfigMap's layout), deciding the enabled modules
  --global-hooks-dir DIR   global hooks (default $GLOBAL_HOOKS_DIR, $ADDON_OPERATOR_GLOBAL_HOOKS_DIR
                           or $SHELL_OPERATOR_HOOKS_DIR)
  --components-path DIRS   more folders of shared components (colon-separated)
  --kube-config FILE       resolve kinds the tree does not define through this cluster's discovery
  --helm-path PATH         the helm binary for chart modules
  --skip-hooks             render without running the hooks that produce values (global onStartup
                           and beforeAll, enabled scripts, module onStartup and beforeHelm, with
                           empty snapshots, as \`kaddon build --run-hooks\`); they run by default
  -h, --help               show this help`;

/** \`kaddon rbac\`: wiring only; the permissions are rbacNeeds', the objects rbacObjects'. */
export async function runRbac(args: readonly string[], io: CliIo): Promise<void> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      namespace: { type: 'string' },
      'service-account': { type: 'string', default: 'kaddon' },
      name: { type: 'string' },
      values: { type: 'string' },
      'config-values': { type: 'string' },
      'global-hooks-dir': { type: 'string' },
      'components-path': { type: 'string' },
      'kube-config': { type: 'string' },
      'helm-path': { type: 'string' },
      'skip-hooks': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout(`${rbacUsage}\n`);
    return;
  }
  const read = new SettingReader(process.env, {
    namespace: values.namespace,
    'helm-path': values['helm-path'],
    'global-hooks-dir': values['global-hooks-dir'],
  });
  const dirs = splitPaths(positionals.length > 0 ? positionals.join(':') : read.text('modulesDir', ''));
  if (dirs.length === 0)
    throw new UsageError(
      'name a modules directory or set MODULES_DIR (or ADDON_OPERATOR_MODULES_DIR)',
      rbacUsage,
    );
  const namespace = resolveNamespace(read, 'rbac');
  const serviceAccount = values['service-account'];
  const globalHooksDir = read.find('globalHooksDir')?.value;
  const stop = stopOnSignals();
  const stopSignal = stop.signal;
  const jq = await loadJqEngine({ timeoutMs: jqTimeoutMs(read) });
  const runDeps = createHookRunDeps({
    stopSignal,
    logger: stderrLogger(io),
    baseEnv: hookEnvironment(process.env, hookEnv(read)),
    cwd: process.cwd(),
    tmpRoot: tmpdir(),
  });
  // The values hooks produce decide what is rendered, as in the operator (`kaddon build --run-hooks`).
  const hooks = values['skip-hooks'] ? {} : { hooks: { runDeps, snapshots: {}, timeoutMs: HOOK_TIMEOUT_MS } };
  const result = await buildTree({
    ...hooks,
    dirs,
    ...(values.values ? { extraValues: readMap(values.values) } : {}),
    config: values['config-values']
      ? parseConfigValues(readYaml(values['config-values']), values['config-values'])
      : EMPTY_CONFIG_VALUES,
    globalHooksDir,
    sharedComponentRoots: componentRoots(values['components-path'], dirs),
    jq,
    charts: buildChartsOptions(read, namespace, tmpdir(), stopSignal),
  }).catch((error: unknown) => {
    stop.release();
    throw error;
  });
  throwIfStopped(stopSignal, 'rbac');
  for (const warning of result.warnings) io.stderr(`warning: ${warning}\n`);
  const permissions = await rbacNeeds({
    tree: result.tree,
    enabledModules: result.enabledModules,
    slices: result.rendered.slices,
    globalHooksDir,
    namespace,
    crdFilterPrefixes: crdFilterPrefixes(read),
    runDeps,
    jq,
    ...(values['kube-config'] ? { discover: await clusterDiscovery(values['kube-config']) } : {}),
  }).finally(stop.release);
  throwIfStopped(stopSignal, 'rbac');
  const objects = rbacObjects(permissions, {
    name: values.name ?? serviceAccount,
    serviceAccount,
    serviceAccountNamespace: namespace,
  });
  io.stdout(objects.map((object) => stringifyYaml(object)).join('---\n'));
}

/** A hook run by `rbac` that takes longer is stopped, as in `kaddon build`: 10 minutes. */
const HOOK_TIMEOUT_MS = 600_000;

/** Kinds through the cluster's discovery; a kind it does not serve is undefined. */
async function clusterDiscovery(kubeconfig: string): Promise<DiscoverKind> {
  const { KubeClient, KubeApiError } = await import('../delivery/kube-client.ts');
  const { loadKubeConnection } = await import('../delivery/kube-connection.ts');
  const client = new KubeClient(
    loadKubeConnection(process.env, {
      kubeconfig,
      context: new SettingReader(process.env).find('kubeContext')?.value,
    }),
  );
  return async (apiVersion, kind) => {
    if (apiVersion === '') return undefined;
    try {
      const found = await client.resolveResource(apiVersion, kind);
      return { group: found.group, resource: found.name, namespaced: found.namespaced };
    } catch (error: unknown) {
      if (error instanceof KubeApiError && error.status === 404) return undefined;
      throw error;
    }
  };
}

function readYaml(file: string): ReturnType<typeof parseYamlDocument> {
  if (!existsSync(file)) throw new ValuesError(file, 'the file does not exist', 'Correct the path.');
  return parseYamlDocument(readFileSync(file, 'utf8'), file);
}

function readMap(file: string): Record<string, never> {
  const value = readYaml(file) ?? {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw new ValuesError(file, 'values must be a map', 'Use the layout of modules/values.yaml.');
  return value as Record<string, never>;
}
