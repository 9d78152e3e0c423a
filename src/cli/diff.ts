import { parseArgs } from 'node:util';
import { SettingReader } from '../config/setting-reader.ts';
import type { JsonObject } from '../core/json.ts';
import { parseConfigValues, type ConfigValues } from '../core/values.ts';
import { formatDiffJson, formatDiffText, hasChanges, type ModuleDiff } from '../core/module-diff.ts';
import { diffRelease } from '../delivery/drift/release-diff.ts';
import { readStoredReleases } from '../delivery/drift/release-storage.ts';
import { recordedPatches } from '../delivery/helm/deliver-module.ts';
import { KubeApiError, KubeClient } from '../delivery/kube-client.ts';
import { loadKubeConnection } from '../delivery/kube-connection.ts';
import { findOperatorNamespace } from '../delivery/operator-namespace.ts';
import { loadModulesTree } from '../loader/modules-tree.ts';
import { driftIgnoreOf } from '../runtime/drift-ignore.ts';
import { buildFlags, buildUsage, renderForCli } from './build.ts';
import type { CliIo } from './cli-io.ts';
import { UsageError } from './usage-error.ts';

export const diffUsage = `Usage: kaddon diff [MODULES_DIR...] [options]
       kaddon diff --git-url URL [--git-ref REF] [--git-subpath DIR] [options]

Renders the modules tree as \`kaddon build\` does and shows what delivering it would change
in the cluster, without writing anything: each module's objects go through a server-side
apply dry run as helm would apply them, and are compared with the live objects on the
fields the release sets (what the server or other controllers fill in is left out).
Objects of a module's release that are no longer rendered show as deleted; modules
without a release as installed, releases of disabled modules as uninstalled. Secret
values are never shown. The config values are read from the operator's ConfigMap
when it exists, unless --config-values or --no-cluster-config says otherwise.
Hooks are not run: the values patches each module's release recorded at its last
delivery stand in for them, over the values of now; --run-hooks runs them instead.

Exit status: 0 nothing would change, 2 something would, 1 an error.

Options (besides those of \`kaddon build\`, below):
  --kube-config FILE       the cluster (default $KUBE_CONFIG or $KUBECONFIG)
  --kube-context NAME      the kubeconfig context (default $KUBE_CONTEXT, else the current one)
  --namespace NS           the operator's namespace: its releases and ConfigMap (default
                           $ADDON_OPERATOR_NAMESPACE; else the one namespace that holds the
                           operator's ConfigMap, found by listing ConfigMaps by that name)
  --config-map NAME        the operator's ConfigMap (default $ADDON_OPERATOR_CONFIG_MAP,
                           else addon-operator)
  --no-cluster-config      do not read the ConfigMap; config values from --config-values only
  -o, --output text|json   output format (default text; colour on a terminal only)

${withoutOptions(buildUsage.slice(buildUsage.indexOf('Options:')), ['--namespace', '--output'])}`;

/** A usage's option entries less those of the flags given (diff defines them its own way). */
function withoutOptions(options: string, flags: readonly string[]): string {
  const kept: string[] = [];
  let dropping = false;
  for (const line of options.split('\n')) {
    if (/^ {2}-/.test(line)) dropping = flags.some((flag) => new RegExp(`(^|[ ,])${flag}( |$)`).test(line));
    else if (!/^ {3,}/.test(line)) dropping = false;
    if (!dropping) kept.push(line);
  }
  return kept.join('\n');
}

/** `kaddon diff`: wiring only; the comparison is diffRelease (docs/drift.md "kaddon diff"). */
export async function runDiff(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      ...buildFlags,
      'kube-config': { type: 'string' },
      'kube-context': { type: 'string' },
      'config-map': { type: 'string' },
      'no-cluster-config': { type: 'boolean', default: false },
      output: { type: 'string', short: 'o', default: 'text' },
    },
  });
  if (values.help) {
    io.stdout(`${diffUsage}\n`);
    return 0;
  }
  if (values.output !== 'text' && values.output !== 'json')
    throw new UsageError(`--output must be text or json, not '${values.output}'`, diffUsage);
  const read = new SettingReader(process.env, {
    namespace: values.namespace,
    'kube-config': values['kube-config'],
    'kube-context': values['kube-context'],
    'config-map': values['config-map'],
  });
  // A missing tree is said before anything is asked of the cluster.
  for (const dir of positionals) if (values['git-url'] === undefined) loadModulesTree([dir]);
  const api = new KubeClient(
    loadKubeConnection(process.env, {
      kubeconfig: read.find('kubeconfig')?.value,
      context: read.find('kubeContext')?.value,
    }),
  );
  const configMap = read.text('configMap', 'addon-operator');
  const namespace =
    read.find('namespace')?.value ??
    (await findOperatorNamespace(api, configMap, (note) => {
      io.stderr(`diff: ${note}\n`);
    }));
  const config =
    values['config-values'] === undefined && !values['no-cluster-config']
      ? await clusterConfig(api, namespace, configMap)
      : undefined;
  const releases = await readStoredReleases(api, namespace);
  // Hooks are not run: each module's values patches are those its release recorded
  // (docs/drift.md "What diff compares").
  const rendered = await renderForCli({ ...values, namespace }, positionals, io, diffUsage, {
    ...(config ? { config } : {}),
    recordedPatches: (module) => {
      const release = releases.get(module);
      return release && recordedPatches(release.values);
    },
  });
  const slices = new Map(rendered.slices);
  const modules =
    values.module !== undefined
      ? [values.module]
      : rendered.known.filter((m) => slices.has(m) || releases.has(m));
  const diffs: ModuleDiff[] = [];
  for (const module of modules)
    diffs.push(
      await diffRelease(api, {
        module,
        namespace,
        objects: (slices.get(module) ?? []).map((resource) => resource.obj),
        released: releases.get(module)?.objects,
        ignore: (desired, live) => driftIgnoreOf(desired, live, rendered.driftIgnore(module)),
      }),
    );
  io.stdout(
    values.output === 'json'
      ? formatDiffJson(diffs)
      : formatDiffText(diffs, { colour: process.stdout.isTTY && !process.env.NO_COLOR }),
  );
  return hasChanges(diffs) ? 2 : 0;
}

/** The operator's ConfigMap as config values; none when it does not exist. */
async function clusterConfig(
  api: KubeClient,
  namespace: string,
  name: string,
): Promise<ConfigValues | undefined> {
  let configMap: JsonObject;
  try {
    configMap = await api.request(
      'GET',
      `/api/v1/namespaces/${encodeURIComponent(namespace)}/configmaps/${encodeURIComponent(name)}`,
    );
  } catch (error: unknown) {
    if (error instanceof KubeApiError && error.status === 404) return undefined;
    throw error;
  }
  return parseConfigValues(configMap.data ?? null, `ConfigMap ${namespace}/${name}`);
}
