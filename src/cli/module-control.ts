import { parseArgs } from 'node:util';
import { setTimeout as delay } from 'node:timers/promises';
import { isJsonObject, scalarText, type JsonObject } from '../core/json.ts';
import { KubeApiError, KubeClient } from '../delivery/kube-client.ts';
import { loadKubeConnection } from '../delivery/kube-connection.ts';
import { MODULES_PATH, RECONCILE_REQUEST_ANNOTATION } from '../delivery/module-crd.ts';
import { findOperatorNamespace } from '../delivery/operator-namespace.ts';
import { SettingReader } from '../config/setting-reader.ts';
import { KaddonError } from '../core/errors.ts';
import { parseGoDuration } from '../core/go-duration.ts';
import type { CliIo } from './cli-io.ts';
import { UsageError } from './usage-error.ts';

export const moduleControlUsage = `Usage:
  kaddon module maintenance NAME on|off [--hooks run|stop]
  kaddon module reconcile NAME [--wait] [--timeout DURATION]
  kaddon module reconcile --all

Acts on the Module objects in the cluster, as kubectl would (docs/operations.md):

  maintenance NAME on    hands off: kaddon stops delivering the module, correcting its drift and
                         uninstalling it (spec.maintenance: On); its hooks keep running unless
                         --hooks stop. It lasts across restarts and leader changes.
  maintenance NAME off   ends it: the module's current desired state is delivered once.
  reconcile NAME         runs the module now (hooks, render, delivery, drift check) by setting
                         the ${RECONCILE_REQUEST_ANNOTATION} annotation; with --wait, waits until
                         status.lastHandledReconcileAt answers it and prints the Ready condition.
  reconcile --all        the whole tree now: a Git source is fetched at once, else every module is
                         run again (the annotation on the operator's ConfigMap).

Options:
  --kube-config FILE       the cluster (default $KUBE_CONFIG or $KUBECONFIG)
  --kube-context NAME      the kubeconfig context (default $KUBE_CONTEXT, else the current one)
  --namespace NS           with --all: the operator's namespace (default $ADDON_OPERATOR_NAMESPACE,
                           else the one namespace holding the operator's ConfigMap)
  --config-map NAME        with --all: the operator's ConfigMap (default
                           $ADDON_OPERATOR_CONFIG_MAP, else addon-operator)
  --timeout DURATION       with --wait: how long to wait, in seconds or as 30s, 2m (default 2m)`;

/** A Module the cluster does not have. */
class ModuleNotFoundError extends KaddonError {
  readonly code = 'MODULE_NOT_FOUND';

  constructor(module: string) {
    super(
      `module '${module}': no Module object in the cluster.`,
      'Check the name with `kubectl get modules`; the operator creates one per module of its tree.',
    );
  }
}

/** `kaddon module maintenance|reconcile`: patches the Module object, or the ConfigMap for --all. */
export async function runModuleControl(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      help: { type: 'boolean', short: 'h', default: false },
      hooks: { type: 'string' },
      wait: { type: 'boolean', default: false },
      timeout: { type: 'string', default: '2m' },
      all: { type: 'boolean', default: false },
      'kube-config': { type: 'string' },
      'kube-context': { type: 'string' },
      namespace: { type: 'string' },
      'config-map': { type: 'string' },
    },
  });
  if (values.help) {
    io.stdout(`${moduleControlUsage}\n`);
    return 0;
  }
  const [action, name, state] = positionals;
  const read = new SettingReader(process.env, {
    'kube-config': values['kube-config'],
    'kube-context': values['kube-context'],
    namespace: values.namespace,
    'config-map': values['config-map'],
  });
  const api = (): KubeClient =>
    new KubeClient(
      loadKubeConnection(process.env, {
        kubeconfig: read.find('kubeconfig')?.value,
        context: read.find('kubeContext')?.value,
      }),
    );
  if (action === 'maintenance') {
    if (name === undefined || (state !== 'on' && state !== 'off'))
      throw new UsageError('maintenance takes a module name and on or off', moduleControlUsage);
    const hooks = values.hooks ?? 'run';
    if (hooks !== 'run' && hooks !== 'stop')
      throw new UsageError(`--hooks must be run or stop, not '${hooks}'`, moduleControlUsage);
    const spec =
      state === 'on'
        ? { maintenance: 'On', maintenanceHooks: hooks === 'stop' ? 'Stop' : 'Run' }
        : { maintenance: 'Off', maintenanceHooks: null };
    await patchModule(api(), name, { spec });
    io.stdout(
      state === 'on'
        ? `module ${name}: maintenance on${hooks === 'stop' ? ', hooks held' : ''}: kaddon leaves it alone until \`kaddon module maintenance ${name} off\`\n`
        : `module ${name}: maintenance off: its desired state is delivered now\n`,
    );
    return 0;
  }
  if (action === 'reconcile') {
    const requestedAt = new Date().toISOString();
    if (values.all) {
      if (name !== undefined)
        throw new UsageError('reconcile --all takes no module name', moduleControlUsage);
      const client = api();
      const configMap = read.text('configMap', 'addon-operator');
      const namespace =
        read.find('namespace')?.value ??
        (await findOperatorNamespace(client, configMap, (note) => {
          io.stderr(`reconcile: ${note}\n`);
        }));
      await client.request(
        'PATCH',
        `/api/v1/namespaces/${encodeURIComponent(namespace)}/configmaps/${encodeURIComponent(configMap)}`,
        {
          body: { metadata: { annotations: { [RECONCILE_REQUEST_ANNOTATION]: requestedAt } } },
          contentType: 'application/merge-patch+json',
        },
      );
      io.stdout(`the whole tree: reconcile requested at ${requestedAt}\n`);
      return 0;
    }
    if (name === undefined)
      throw new UsageError('reconcile takes a module name, or --all', moduleControlUsage);
    const client = api();
    await patchModule(client, name, {
      metadata: { annotations: { [RECONCILE_REQUEST_ANNOTATION]: requestedAt } },
    });
    io.stdout(`module ${name}: reconcile requested at ${requestedAt}\n`);
    if (!values.wait) return 0;
    return waitForAnswer(client, name, requestedAt, timeoutMs(values.timeout), io);
  }
  throw new UsageError(`unknown subcommand '${action ?? ''}'`, moduleControlUsage);
}

async function patchModule(api: KubeClient, module: string, body: JsonObject): Promise<void> {
  try {
    await api.request('PATCH', `${MODULES_PATH}/${encodeURIComponent(module)}`, {
      body,
      contentType: 'application/merge-patch+json',
    });
  } catch (error: unknown) {
    if (error instanceof KubeApiError && error.status === 404) throw new ModuleNotFoundError(module);
    throw error;
  }
}

/** Polls the Module until its status answers the request; 0 when Ready, 1 otherwise or on timeout. */
async function waitForAnswer(
  api: KubeClient,
  module: string,
  requestedAt: string,
  limitMs: number,
  io: CliIo,
): Promise<number> {
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    const object = await api.request('GET', `${MODULES_PATH}/${encodeURIComponent(module)}`);
    const status = isJsonObject(object.status) ? object.status : {};
    if (status.lastHandledReconcileAt === requestedAt) {
      const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isJsonObject) : [];
      const ready = conditions.find((condition) => condition.type === 'Ready');
      const text = `${scalarText(ready?.status ?? 'Unknown')} ${scalarText(ready?.reason)}: ${scalarText(ready?.message)}`;
      io.stdout(`module ${module}: reconciled; Ready=${text}\n`);
      return ready?.status === 'True' ? 0 : 1;
    }
    await delay(500);
  }
  io.stderr(
    `module ${module}: the request was not answered within ${String(limitMs / 1000)}s: is the operator running?\n`,
  );
  return 1;
}

/** `90` (seconds) or a Go duration (`30s`, `2m`): a wait's bound in milliseconds. */
function timeoutMs(text: string): number {
  const ms = /^\d{1,6}$/u.test(text) ? Number(text) * 1000 : parseGoDuration(text);
  if (ms === undefined || ms <= 0)
    throw new UsageError(
      `--timeout must be seconds or a duration like 30s, 2m, not '${text}'`,
      moduleControlUsage,
    );
  return ms;
}
