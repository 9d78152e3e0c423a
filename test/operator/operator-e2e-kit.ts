import assert from 'node:assert/strict';
import path from 'node:path';
import { HelmClient } from '../../src/delivery/helm/helm-client.ts';
import { KubeClient } from '../../src/delivery/kube-client.ts';
import { connectionFromKubeconfig } from '../../src/delivery/kube-connection.ts';
import { ensureHelm } from '../cluster/ensure-helm.ts';
import { findFreePort } from '../cluster/free-port.ts';
import { startTestCluster, type TestCluster } from '../cluster/test-cluster.ts';
import { makeTempTree, type TempTree } from '../temp-tree.ts';
import { startOperatorProcess, type OperatorProcessOptions } from './start-operator.ts';
import { descendants } from '../processes.ts';

/** How much of the operator's output a failed wait shows. */
const TAIL_CHARS = 6000;

/** A running `kaddon operator` process and what it printed so far. */
export interface E2eOperator {
  readonly process: ReturnType<typeof startOperatorProcess>;
  /** Everything the operator printed (stdout and stderr interleaved), while it runs too. */
  output(): string;
  /** The last lines of `output()`. */
  tail(): string;
  hasExited(): boolean;
}

export function startE2eOperator(options: OperatorProcessOptions): E2eOperator {
  const child = startOperatorProcess(options);
  let printed = '';
  child.all.on('data', (chunk: Buffer) => {
    printed += chunk.toString('utf8');
  });
  return {
    process: child,
    output: () => printed,
    tail: () => printed.slice(-TAIL_CHARS),
    hasExited: () => child.exitCode !== null || child.signalCode !== null,
  };
}

export interface OperatorEnvironmentOptions {
  /** Created in the cluster: the operator's namespace and its releases'. */
  readonly namespace: string;
  /** Names the work dir, `kaddon-<prefix>-*` under the OS temp dir. */
  readonly prefix: string;
  /** For the releases `stop()` uninstalls; helm client's default when not given. */
  readonly uninstallTimeoutSeconds?: number;
  /** A cluster whose workloads progress (kube-controller-manager, kube-scheduler, KWOK). */
  readonly withControllers?: boolean;
  /** With withControllers: pods/portforward reaches the fake Pods (test/cluster/README.md). */
  readonly withPortForward?: boolean;
}

/** What differs between the operators the e2e tests start on one environment. */
interface EnvironmentOperatorOptions {
  /** Default: `modules/` in the work dir. */
  readonly modulesDir?: string;
  readonly forceKillAfterDelay: number;
  readonly extraEnv?: Readonly<Record<string, string>>;
}

/** A test cluster, helm, the namespace and a work dir for the `kaddon operator` runs of one test file. */
export interface OperatorEnvironment {
  readonly cluster: TestCluster;
  readonly api: KubeClient;
  readonly helm: HelmClient;
  readonly helmPath: string;
  /** The operator's work dir (debug socket, hooks' temp files) and the files the test writes. */
  readonly tree: TempTree;
  /** The loopback port every operator of the environment listens on, one at a time. */
  readonly port: number;
  startOperator(options: EnvironmentOperatorOptions): E2eOperator;
  /** Kills the operators still running, uninstalls the namespace's releases, stops the cluster. */
  stop(): Promise<void>;
}

export async function startOperatorEnvironment(
  options: OperatorEnvironmentOptions,
): Promise<OperatorEnvironment> {
  const { namespace } = options;
  const helmPath = (await ensureHelm()).helm;
  const cluster = await startTestCluster({
    withControllers: options.withControllers ?? false,
    withPortForward: options.withPortForward ?? false,
  });
  const api = new KubeClient(connectionFromKubeconfig(cluster.kubeconfigPath));
  const helm = new HelmClient({ helmPath, kubeconfigPath: cluster.kubeconfigPath });
  await api.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
  });
  const tree = makeTempTree(options.prefix);
  const port = await findFreePort();
  const operators: E2eOperator[] = [];
  const startOperator = (operatorOptions: EnvironmentOperatorOptions): E2eOperator => {
    const { modulesDir = path.join(tree.root, 'modules'), ...rest } = operatorOptions;
    const operator = startE2eOperator({
      ...rest,
      modulesDir,
      namespace,
      kubeconfigPath: cluster.kubeconfigPath,
      helmPath,
      workDir: tree.root,
      port,
    });
    operators.push(operator);
    return operator;
  };
  const stop = async (): Promise<void> => {
    for (const operator of operators) if (!operator.hasExited()) await killOperatorTree(operator);
    for (const release of await helm.list(namespace))
      await helm.uninstall(release, namespace, options.uninstallTimeoutSeconds);
    await cluster.stop();
    tree.remove();
  };
  return { cluster, api, helm, helmPath, tree, port, startOperator, stop };
}

/**
 * Polls `check` until it returns a value, or fails with the operator's recent output at the
 * deadline or when the operator exits. A check that throws counts as not yet.
 */
export async function eventually<T>(
  operator: E2eOperator,
  what: string,
  check: () => Promise<T | undefined>,
  deadlineMs = 90_000,
): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline || operator.hasExited())
      assert.fail(`${what}: not reached. Operator output:\n${operator.tail()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Resolves once the operator answers /readyz with 200: its first convergence is done. */
export async function waitReady(operator: E2eOperator, port: number, deadlineMs?: number): Promise<void> {
  await eventually(
    operator,
    '/readyz 200',
    async () => {
      const response = await fetch(`http://127.0.0.1:${port}/readyz`);
      return response.status === 200 ? true : undefined;
    },
    deadlineMs,
  );
}

/** Merges `data` into ConfigMap/addon-operator (docs/values.md), creating it if absent. */
export async function setOperatorConfig(
  api: KubeClient,
  namespace: string,
  data: Readonly<Record<string, string>>,
): Promise<void> {
  const collection = `/api/v1/namespaces/${namespace}/configmaps`;
  const exists = await api.request('GET', `${collection}/addon-operator`).then(
    () => true,
    () => false,
  );
  if (!exists) {
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'addon-operator' }, data };
    await api.request('POST', collection, { body });
    return;
  }
  await api.request('PATCH', `${collection}/addon-operator`, {
    body: { data },
    contentType: 'application/merge-patch+json',
  });
}

/**
 * SIGKILLs the operator and every process under it (helm, hook processes), as a node crash or an
 * OOM kill of the container would, and waits for the operator to be gone. The descendants are
 * collected first: once the parent dies they are re-parented and can no longer be found by it.
 */
export async function killOperatorTree(operator: E2eOperator): Promise<void> {
  const root = operator.process.pid;
  if (root === undefined) return;
  for (const pid of [root, ...descendants(root).map((entry) => entry.pid)]) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  await operator.process;
}

/**
 * The files of a module whose only resource is the ConfigMap `<module>-state` in `namespace`,
 * `data` being its `data:` lines (indented two spaces, `$(var)` references allowed).
 */
export function stateModuleFiles(namespace: string, module: string, data: string): Record<string, string> {
  return {
    'kustomization.yaml': `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: ${namespace}\nresources:\n- state.yaml\n`,
    'state.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${module}-state\ndata:\n${data}`,
  };
}

/**
 * An operator of the environment following the Git repository at `fileUrl` (its `modules/`, polled
 * every second, its mirror in the work dir) instead of a modules dir.
 */
export function startGitOperator(
  env: OperatorEnvironment,
  fileUrl: string,
  extraEnv: Readonly<Record<string, string>> = {},
): E2eOperator {
  return env.startOperator({
    modulesDir: path.join(env.tree.root, 'not-used'),
    forceKillAfterDelay: 30_000,
    extraEnv: {
      MODULES_GIT_URL: fileUrl,
      MODULES_GIT_SUBPATH: 'modules',
      MODULES_GIT_POLL_INTERVAL: '1s',
      MODULES_GIT_CACHE_DIR: path.join(env.tree.root, 'git-cache'),
      ...extraEnv,
    },
  });
}

/**
 * The files of a modules tree of state modules (stateModuleFiles), each enabled, its ConfigMap's
 * `rev` set from `<module>.rev` (0 in its values.yaml): paths relative to the environment's tree.
 */
export function stateModulesTree(namespace: string, modules: readonly string[]): Record<string, string> {
  const files: Record<string, string> = {
    'modules/values.yaml': modules.map((module) => `${module}Enabled: true\n`).join(''),
  };
  for (const [index, module] of modules.entries()) {
    const dir = `modules/${String(10 + index)}-${module}`;
    for (const [file, text] of Object.entries(
      stateModuleFiles(namespace, module, `  rev: "$(${module}.rev)"\n`),
    ))
      files[`${dir}/${file}`] = text;
    files[`${dir}/values.yaml`] = `${module}:\n  rev: 0\n`;
  }
  return files;
}
