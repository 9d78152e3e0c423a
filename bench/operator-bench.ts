import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { execa } from 'execa';
import { HelmClient } from '../src/delivery/helm/helm-client.ts';
import { KubeClient, type WatchEvent } from '../src/delivery/kube-client.ts';
import { connectionFromKubeconfig } from '../src/delivery/kube-connection.ts';
import { runHook } from '../src/hooks/run/run-hook.ts';
import { discoverModuleHooks } from '../src/hooks/discover-hooks.ts';
import { createHookRunDeps, type HookRunDeps } from '../src/hooks/run/run-hook-deps.ts';
import { moduleOwner } from '../src/core/values.ts';
import { moduleValuesKey } from '../src/core/module-name.ts';
import { loadJqEngine } from '../src/jq/jq-engine.ts';
import { loadModulesTree } from '../src/loader/modules-tree.ts';
import { loadTreeSchemas } from '../src/loader/values-schemas.ts';
import { loadHooks, runLifecycleHook } from '../src/runtime/lifecycle-hooks.ts';
import { MemoryConfigStore } from '../src/runtime/memory-config-store.ts';
import { ValuesStore } from '../src/runtime/values-store.ts';
import { selectHookEnv } from '../src/hooks/run/run-hook-env.ts';
import { createLogger } from '../src/observability/logger.ts';
import { ensureHelm } from '../test/cluster/ensure-helm.ts';
import { findFreePort } from '../test/cluster/free-port.ts';
import { startTestCluster, type TestCluster } from '../test/cluster/test-cluster.ts';
import { startOperatorProcess } from '../test/operator/start-operator.ts';
import { repoRoot } from '../test/repo-root.ts';
import { findFluxPeer, measureFluxConvergence, type FluxTiming } from './flux-peer.ts';
import { generateChartModulesTree } from './generate-chart-modules.ts';
import { generateModulesTree, removeModulesTree, type GeneratedModulesTree } from './generate-modules.ts';

const usage = `Usage: npm run bench:operator -- [--modules 100,1000] [--kinds kustomization,chart]
       [--engines native,helm] [--hook-runs 50] [--compiled] [--heap-snapshot DIR]
       [--cpu-profile DIR] [--flux [--flux-at 100]]

For each size and kind of module, starts a test cluster, runs \`kaddon operator\` on a generated
modules tree and measures the time from spawn to /readyz 200 (first convergence), then restarts it
over the unchanged modules and measures that too. --kinds: \`kustomization\` trees are
Kustomization modules with Components (bench/generate-modules.ts), \`chart\` trees are
addon-operator chart modules (bench/generate-chart-modules.ts). --engines runs each with each
KADDON_DELIVERY (default both, the default engine first), side by side (docs/delivery.md). Then compares runHook on a
trivial bash hook with spawning \`bash hook.sh\` directly. --heap-snapshot writes a V8 heap
snapshot of the idle operator at each size into DIR (open it in Chrome DevTools' Memory tab).
--cpu-profile has each operator process write a V8 CPU profile into DIR when it exits (node --cpu-prof).
--flux converges the trees of the --flux-at sizes (default 100) with Flux's kustomize-controller
too, in a cluster of its own, as the peer (build it first: bench/flux/build-kustomize-controller.sh).
After each convergence one module's values are edited in the operator's ConfigMap and the time
until its release's next revision is recorded deployed is taken from a watch on its release Secrets.
Last, the goals of docs/performance.md (issue 47) as ratios, for the default engine: 1,000
Kustomization modules converge within 10 s and restart within 2 s, 1,000 chart modules converge
within 20 s and a chart module's values edit reaches a new revision within 0.2 s, the idle RSS
within 250 MiB at 1,000 modules and 120 MiB at 100 (meant with --compiled, as the image runs);
and 100 modules (with --flux-at 1000, 1,000) in at most half of Flux's time.`;

const NAMESPACE = 'kaddon-bench';
/** The namespaces the generated app modules deploy into (generate-modules.ts: team-0 … team-7). */
const TEAM_NAMESPACES = Array.from({ length: 8 }, (_, index) => `team-${String(index)}`);
const CONVERGE_DEADLINE_MS = 30 * 60_000;

type Engine = 'helm' | 'native';
/** Which generated tree: Kustomization modules with Components, or addon-operator chart modules. */
type Kind = 'kustomization' | 'chart';
const DEFAULT_ENGINE: Engine = 'native';

interface BenchOptions {
  readonly modules: readonly number[];
  /** KADDON_DELIVERY values to run each size with. */
  readonly engines: readonly Engine[];
  readonly kinds: readonly Kind[];
  readonly hookRuns: number;
  /** The operator runs dist/ (built first), as the image does, instead of src/ through tsx. */
  readonly compiled: boolean;
  /** Where to write a heap snapshot of the idle operator, if anywhere. */
  readonly heapSnapshotDir: string | undefined;
  /** Where each operator process writes a V8 CPU profile (node --cpu-prof) when it exits. */
  readonly cpuProfileDir: string | undefined;
  /** Also converge these sizes' trees with Flux's kustomize-controller (bench/flux-peer.ts). */
  readonly fluxAt: readonly number[];
}

interface ConvergeTiming {
  readonly engine: Engine;
  readonly kind: Kind;
  readonly modules: number;
  readonly enabled: number;
  readonly releases: number | undefined;
  /** Undefined when the operator did not become ready before the deadline or exited. */
  readonly seconds: number | undefined;
  /** Of that: seconds in helm operations and in renders of the tree, from the operator's /metrics. */
  readonly helmSeconds: number | undefined;
  readonly renderSeconds: number | undefined;
  /** Seconds from one module's ConfigMap edit to its release's next revision; undefined when not seen. */
  readonly editSeconds: number | undefined;
  /** VmRSS of the operator's node process 5 s after the first convergence, in MiB. */
  readonly idleRssMiB: number | undefined;
  /** CPU seconds until the first convergence: the operator's own, and its children's (helm, hooks). */
  readonly cpu: ProcessCpu | undefined;
  /**
   * CPU seconds the kube-apiserver and etcd spent from the operator's spawn to its first
   * convergence: the cluster's share of the two CPUs the operator shares with it.
   */
  readonly clusterCpu: number | undefined;
  /** Seconds from a second operator's spawn to /readyz 200 over the converged, unchanged modules. */
  readonly restartSeconds: number | undefined;
}

interface ProcessCpu {
  readonly self: number;
  readonly children: number;
}

function parseOptions(argv: readonly string[]): BenchOptions | undefined {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      modules: { type: 'string', default: '100,1000' },
      kinds: { type: 'string', default: 'kustomization,chart' },
      engines: { type: 'string', default: 'native,helm' },
      'hook-runs': { type: 'string', default: '50' },
      compiled: { type: 'boolean', default: false },
      'heap-snapshot': { type: 'string' },
      'cpu-profile': { type: 'string' },
      flux: { type: 'boolean', default: false },
      'flux-at': { type: 'string', default: '100' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return undefined;
  const count = (text: string, flag: string): number => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1)
      throw new Error(`${flag}: '${text}' is not a positive whole number`);
    return value;
  };
  return {
    modules: values.modules.split(',').map((size) => count(size, '--modules')),
    engines: values.engines.split(',').map((engine) => {
      if (engine !== 'helm' && engine !== 'native')
        throw new Error(`--engines: '${engine}' is neither helm nor native`);
      return engine;
    }),
    kinds: values.kinds.split(',').map((kind) => {
      if (kind !== 'kustomization' && kind !== 'chart')
        throw new Error(`--kinds: '${kind}' is neither kustomization nor chart`);
      return kind;
    }),
    hookRuns: count(values['hook-runs'], '--hook-runs'),
    compiled: values.compiled,
    heapSnapshotDir:
      values['heap-snapshot'] === undefined ? undefined : path.resolve(values['heap-snapshot']),
    cpuProfileDir: values['cpu-profile'] === undefined ? undefined : path.resolve(values['cpu-profile']),
    fluxAt: values.flux ? values['flux-at'].split(',').map((size) => count(size, '--flux-at')) : [],
  };
}

async function createNamespace(api: KubeClient, name: string): Promise<void> {
  await api.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
  });
}

async function isReady(port: number): Promise<boolean> {
  try {
    const response = await fetch(`http://127.0.0.1:${String(port)}/readyz`);
    return response.status === 200;
  } catch {
    return false;
  }
}

/** One cluster, one tree, one operator: seconds from spawn to /readyz 200, and again after a restart. */
async function measureConvergence(
  tree: GeneratedModulesTree,
  helmPath: string,
  options: BenchOptions,
  engine: Engine,
  kind: Kind,
): Promise<ConvergeTiming> {
  const modules = tree.modules.length;
  let cluster: TestCluster | undefined;
  let workDir: string | undefined;
  try {
    // One Service per app module: the test cluster's default range (a /24) holds 254.
    cluster = await startTestCluster({ extraApiServerFlags: ['--service-cluster-ip-range=10.0.0.0/16'] });
    workDir = await mkdtemp(path.join(os.tmpdir(), 'kaddon-operator-bench-'));
    const api = new KubeClient(connectionFromKubeconfig(cluster.kubeconfigPath));
    for (const name of [NAMESPACE, ...TEAM_NAMESPACES]) await createNamespace(api, name);
    const port = await findFreePort();
    const start = (): ReturnType<typeof startOperatorProcess> =>
      startOperatorProcess({
        modulesDir: tree.modulesDir,
        namespace: NAMESPACE,
        kubeconfigPath: cluster?.kubeconfigPath ?? '',
        helmPath,
        workDir: workDir ?? '',
        port,
        // Writing a CPU profile at exit takes a while: it is not killed meanwhile.
        forceKillAfterDelay: options.cpuProfileDir === undefined ? 10_000 : 120_000,
        extraEnv: {
          LOG_LEVEL: 'error',
          KADDON_DELIVERY: engine,
          ...heapSnapshotEnv(options.heapSnapshotDir),
        },
        compiled: options.compiled,
        ...(options.cpuProfileDir === undefined
          ? {}
          : { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`] }),
      });
    const clusterPids = cluster.pids();
    const clusterCpuBefore = await serversCpu([clusterPids.apiServer, clusterPids.etcd]);
    const startedAt = performance.now();
    const operator = start();
    let seconds: number | undefined;
    let cpu: ProcessCpu | undefined;
    let clusterCpu: number | undefined;
    while (performance.now() - startedAt < CONVERGE_DEADLINE_MS && operator.exitCode === null) {
      if (await isReady(port)) {
        seconds = (performance.now() - startedAt) / 1000;
        cpu = await processCpu(operator.pid);
        clusterCpu = (await serversCpu([clusterPids.apiServer, clusterPids.etcd])) - clusterCpuBefore;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const metrics = await fetch(`http://127.0.0.1:${String(port)}/metrics`).then(
      (response) => response.text(),
      () => '',
    );
    const helm = new HelmClient({ helmPath, kubeconfigPath: cluster.kubeconfigPath });
    const releases = await helm.list(NAMESPACE).then(
      (names) => names.length,
      () => undefined,
    );
    const idleRssMiB = seconds === undefined ? undefined : await idleRss(operator.pid);
    if (seconds !== undefined && options.heapSnapshotDir !== undefined)
      await writeHeapSnapshot(operator, options.heapSnapshotDir, modules);
    const editSeconds =
      seconds === undefined ? undefined : await measureConfigEdit(api, helm, tree).catch(reportEditFailure);
    operator.kill('SIGTERM');
    const result = await operator;
    if (seconds === undefined) {
      console.error(`# ${String(modules)} modules: not ready; operator output (tail):`);
      console.error(result.all.slice(-4000));
    }
    const restartSeconds = seconds === undefined ? undefined : await measureRestart(start, port);
    const enabled = tree.modules.filter((module) => module.enabled).length;
    return {
      engine,
      kind,
      modules,
      enabled,
      releases,
      seconds,
      helmSeconds: sumOf(metrics, 'addon_operator_helm_operation_seconds_sum'),
      renderSeconds: sumOf(metrics, 'addon_operator_module_render_seconds_sum'),
      editSeconds,
      idleRssMiB,
      cpu,
      clusterCpu,
      restartSeconds,
    };
  } finally {
    await cluster?.stop();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  }
}

/** Seconds from a new operator's spawn to /readyz 200 over releases already delivered. */
async function measureRestart(
  start: () => ReturnType<typeof startOperatorProcess>,
  port: number,
): Promise<number | undefined> {
  const startedAt = performance.now();
  const operator = start();
  let seconds: number | undefined;
  while (performance.now() - startedAt < CONVERGE_DEADLINE_MS && operator.exitCode === null) {
    if (await isReady(port)) {
      seconds = (performance.now() - startedAt) / 1000;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  operator.kill('SIGTERM');
  await operator;
  return seconds;
}

const CONFIG_MAP_PATH = `/api/v1/namespaces/${NAMESPACE}/configmaps/addon-operator`;
const EDIT_DEADLINE_MS = 60_000;

/**
 * Seconds from one module's ConfigMap edit to its release's next revision recorded `deployed`,
 * as a watch on its release Secrets sees it (both engines write Helm's storage): no polling
 * interval and no helm process of the bench's own in the figure. The clock starts once the watch
 * has shown the current revision (it starts with every existing Secret) and the bench's connection
 * is open (a GET of the ConfigMap), so it holds the edit's PATCH and what the operator does.
 */
async function measureConfigEdit(
  api: KubeClient,
  helm: HelmClient,
  tree: GeneratedModulesTree,
): Promise<number | undefined> {
  const module = tree.modules.find((candidate) => candidate.enabled && /\d$/u.test(candidate.name));
  if (module === undefined) return undefined;
  const before = await helm.release(module.name, NAMESPACE);
  if (before === undefined) return undefined;
  const data = { [moduleValuesKey(module.name)]: 'replicas: 7\n' };
  const stop = new AbortController();
  let startedAt: number | undefined;
  let seconds: number | undefined;
  let watching = (): void => undefined;
  const opened = new Promise<void>((resolve) => {
    watching = resolve;
  });
  const deployed = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, EDIT_DEADLINE_MS);
    const onEvent = (event: WatchEvent): void => {
      const labels = (event.object.metadata as { labels?: Record<string, string> } | undefined)?.labels;
      const version = Number(labels?.version);
      if (version === before.revision) watching();
      if (startedAt === undefined || labels?.status !== 'deployed' || version <= before.revision) return;
      seconds = (performance.now() - startedAt) / 1000;
      clearTimeout(timer);
      resolve();
    };
    const query = { labelSelector: `owner=helm,name=${module.name}`, watch: true };
    api
      .watch(`/api/v1/namespaces/${NAMESPACE}/secrets`, query, onEvent, {
        signal: stop.signal,
        idleMs: EDIT_DEADLINE_MS,
      })
      .catch(reject);
  });
  try {
    await Promise.race([opened, deployed]);
    await api.request('GET', CONFIG_MAP_PATH).catch(() => undefined);
    startedAt = performance.now();
    // The operator does not create its ConfigMap: a tree configured by values.yaml alone has none yet.
    await api
      .request('PATCH', CONFIG_MAP_PATH, { body: { data }, contentType: 'application/merge-patch+json' })
      .catch(() =>
        api.request('POST', `/api/v1/namespaces/${NAMESPACE}/configmaps`, {
          body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'addon-operator' }, data },
        }),
      );
    await deployed;
  } finally {
    stop.abort();
  }
  return seconds;
}

const IDLE_WAIT_MS = 5_000;

/**
 * The operator's resident memory once converged and idle: VmRSS of its node process (run through
 * tsx, as test/operator/start-operator.ts starts it; helm and hook children have exited by then).
 */
async function idleRss(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  await new Promise((resolve) => setTimeout(resolve, IDLE_WAIT_MS));
  const status = await readFile(`/proc/${String(pid)}/status`, 'utf8').catch(() => '');
  const kib = /^VmRSS:\s+(\d+) kB$/mu.exec(status)?.[1];
  return kib === undefined ? undefined : Number(kib) / 1024;
}

/**
 * utime+stime of the process and of its children it has waited for (/proc/PID/stat fields 14–17,
 * in clock ticks of 1/100 s): helm and hook processes that have exited count as children.
 */
async function processCpu(pid: number | undefined): Promise<ProcessCpu | undefined> {
  if (pid === undefined) return undefined;
  const stat = await readFile(`/proc/${String(pid)}/stat`, 'utf8').catch(() => '');
  const fields = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  const ticks = (index: number): number => (fields[index - 3] ?? Number.NaN) / 100;
  return { self: ticks(14) + ticks(15), children: ticks(16) + ticks(17) };
}

/** The CPU seconds of these servers, their own (they start no children). */
async function serversCpu(pids: readonly number[]): Promise<number> {
  let seconds = 0;
  for (const pid of pids) seconds += (await processCpu(pid))?.self ?? Number.NaN;
  return seconds;
}

/** Node writes a heap snapshot into DIR when the operator gets SIGUSR2. */
function heapSnapshotEnv(dir: string | undefined): Record<string, string> {
  if (dir === undefined) return {};
  return { NODE_OPTIONS: `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${dir}` };
}

/** Signals the operator and waits until its snapshot file stops growing. */
async function writeHeapSnapshot(
  operator: { kill: (signal: NodeJS.Signals) => boolean },
  dir: string,
  modules: number,
): Promise<void> {
  await mkdir(dir, { recursive: true });
  const before = new Set(await readdir(dir));
  operator.kill('SIGUSR2');
  let size = -1;
  for (let waited = 0; waited < 60_000; waited += 500) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const file = (await readdir(dir)).find((name) => name.endsWith('.heapsnapshot') && !before.has(name));
    if (file === undefined) continue;
    const current = (await stat(path.join(dir, file))).size;
    if (current === size && current > 0) {
      console.error(`# ${String(modules)} modules: heap snapshot ${path.join(dir, file)}`);
      return;
    }
    size = current;
  }
  console.error(`# ${String(modules)} modules: no heap snapshot written within a minute`);
}

function reportEditFailure(error: unknown): undefined {
  console.error(`# ConfigMap edit not measured: ${error instanceof Error ? error.message : String(error)}`);
  return undefined;
}

/** The sum of every sample of `name` in a /metrics text; undefined when there is none. */
function sumOf(text: string, name: string): number | undefined {
  const values = [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gmu'))].map((match) =>
    Number(match[1]),
  );
  return values.length === 0 ? undefined : values.reduce((total, value) => total + value, 0);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

interface HookOverhead {
  readonly runs: number;
  readonly runHookMs: number;
  readonly bashMs: number;
  /** A beforeHelm run as the operator makes it: values files in, a values patch applied to the store. */
  readonly lifecycleMs: number;
  /** The same hook body (writing the patch file) spawned directly. */
  readonly bashPatchMs: number;
}

/** Medians of runHook on a do-nothing bash hook and of `bash hook.sh` spawned directly. */
async function measureHookOverhead(runs: number): Promise<HookOverhead> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'kaddon-hook-bench-'));
  try {
    const hook = path.join(dir, 'hook.sh');
    await writeFile(hook, '#!/usr/bin/env bash\nexit 0\n');
    await chmod(hook, 0o755);
    const logger = createLogger({ type: 'text', level: 'error', noTime: true, sink: { write: () => true } });
    const deps = createHookRunDeps({ logger, baseEnv: selectHookEnv(process.env), cwd: dir, tmpRoot: dir });
    const request = {
      name: 'hook.sh',
      path: hook,
      bindingContextJson: '[{"binding":"every-second","type":"Schedule"}]',
      valuesJson: '{}',
      configValuesJson: '{}',
    };
    const viaRunHook: number[] = [];
    const viaBash: number[] = [];
    // Alternate the two so that drift in machine load hits both alike.
    for (let run = 0; run < runs; run++) {
      let startedAt = performance.now();
      const result = await runHook(request, deps);
      viaRunHook.push(performance.now() - startedAt);
      if (!result.ok) throw new Error(`runHook failed: ${result.error?.message ?? 'unknown'}`);
      startedAt = performance.now();
      await execa('bash', [hook], { cwd: dir });
      viaBash.push(performance.now() - startedAt);
    }
    const lifecycle = await measureLifecycleRuns(dir, deps, runs);
    return { runs, runHookMs: median(viaRunHook), bashMs: median(viaBash), ...lifecycle };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A module's beforeHelm hook run through runLifecycleHook, as a ModuleRun runs it: binding context,
 * values and config values files written, the hook's values patch read, validated and applied to
 * the values store. Against: `bash` running the same script body, which writes the patch file.
 */
async function measureLifecycleRuns(
  dir: string,
  deps: HookRunDeps,
  runs: number,
): Promise<Pick<HookOverhead, 'lifecycleMs' | 'bashPatchMs'>> {
  const modules = path.join(dir, 'modules');
  await mkdir(path.join(modules, '010-bench/hooks'), { recursive: true });
  await writeFile(path.join(modules, '010-bench/values.yaml'), 'benchEnabled: true\nbench:\n  runs: 0\n');
  const hookPath = path.join(modules, '010-bench/hooks/patch.sh');
  await writeFile(
    hookPath,
    [
      '#!/usr/bin/env bash',
      'if [ "$1" = --config ]; then echo \'{"configVersion":"v1","beforeHelm":1}\'; exit 0; fi',
      'echo "[{\\"op\\":\\"add\\",\\"path\\":\\"/bench/runs\\",\\"value\\":$RANDOM}]" > "$VALUES_JSON_PATCH_PATH"',
      '',
    ].join('\n'),
  );
  await chmod(hookPath, 0o755);
  const tree = loadModulesTree([modules]);
  const store = await ValuesStore.open({
    statics: tree.statics,
    modules: tree.modules.map((module) => module.name),
    schemas: loadTreeSchemas(tree, undefined),
    configStore: new MemoryConfigStore(),
  });
  const [module] = tree.modules;
  if (module === undefined) throw new Error('the bench module did not load');
  const discovered = await discoverModuleHooks(module);
  const [hook] = (await loadHooks(discovered.hooks, deps, await loadJqEngine())).hooks;
  if (hook === undefined) throw new Error('the bench hook did not load');
  const run = {
    store,
    owner: moduleOwner('bench'),
    enabledModules: ['bench'],
    snapshots: () => ({}),
    runDeps: deps,
  };
  const patchFile = path.join(dir, 'patch.json');
  const viaLifecycle: number[] = [];
  const viaBash: number[] = [];
  for (let index = 0; index < runs; index++) {
    let startedAt = performance.now();
    await runLifecycleHook(hook, 'beforeHelm', run);
    viaLifecycle.push(performance.now() - startedAt);
    startedAt = performance.now();
    await execa('bash', [hookPath], { cwd: dir, env: { VALUES_JSON_PATCH_PATH: patchFile } });
    viaBash.push(performance.now() - startedAt);
  }
  return { lifecycleMs: median(viaLifecycle), bashPatchMs: median(viaBash) };
}

const fixed = (value: number | undefined, digits: number): string =>
  value === undefined ? 'n/a' : value.toFixed(digits);

function printConvergence(rows: readonly ConvergeTiming[]): void {
  console.log('\n## Operator: spawn to first convergence (/readyz 200)\n');
  console.log(
    '| modules | kind | engine | enabled | releases | seconds to converge | seconds per enabled module | helm s (sum) | render s | operator CPU s | helm and hooks CPU s | API server and etcd CPU s | ConfigMap edit to new revision s | idle RSS MiB | restart to ready s |',
  );
  console.log(
    '| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const row of rows) {
    const perModule = row.seconds === undefined ? undefined : row.seconds / row.enabled;
    const releases = row.releases === undefined ? 'n/a' : String(row.releases);
    console.log(
      `| ${String(row.modules)} | ${row.kind} | ${row.engine} | ${String(row.enabled)} | ${releases} | ${fixed(row.seconds, 1)} | ${fixed(perModule, 2)} | ${fixed(row.helmSeconds, 1)} | ${fixed(row.renderSeconds, 1)} | ${fixed(row.cpu?.self, 1)} | ${fixed(row.cpu?.children, 1)} | ${fixed(row.clusterCpu, 1)} | ${fixed(row.editSeconds, 2)} | ${fixed(row.idleRssMiB, 0)} | ${fixed(row.restartSeconds, 1)} |`,
    );
  }
}

function printFlux(rows: readonly ConvergeTiming[], fluxRows: ReadonlyMap<number, FluxTiming>): void {
  console.log(
    '\n## Peer: Flux kustomize-controller on the same modules (spawn to every Kustomization Ready)\n',
  );
  console.log('| modules | Kustomizations | objects | Ready | Flux s | kaddon s | kaddon / Flux |');
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const [modules, flux] of fluxRows) {
    const ours = rows.find(
      (row) => row.modules === modules && row.kind === 'kustomization' && row.engine === DEFAULT_ENGINE,
    )?.seconds;
    const ratio = ours === undefined || flux.seconds === undefined ? undefined : ours / flux.seconds;
    console.log(
      `| ${String(modules)} | ${String(flux.kustomizations)} | ${String(flux.objects)} | ${String(flux.ready)} | ${fixed(flux.seconds, 1)} | ${fixed(ours, 1)} | ${fixed(ratio, 2)} |`,
    );
  }
}

/** The goals of docs/performance.md (issue 47), as ratios: at most 1 meets the goal. */
function printGoals(rows: readonly ConvergeTiming[], fluxRows: ReadonlyMap<number, FluxTiming>): void {
  console.log('\n## Goals (a ratio of at most 1 meets the goal)\n');
  console.log('| goal | figure | ratio to the goal |');
  console.log('| --- | ---: | ---: |');
  const ratio = (figure: number | undefined, goal: number): string =>
    fixed(figure === undefined ? undefined : figure / goal, 2);
  const goal = (text: string, figure: number | undefined, unit: string, target: number): void => {
    console.log(`| ${text} | ${fixed(figure, unit === 'MiB' ? 0 : 2)} ${unit} | ${ratio(figure, target)} |`);
  };
  for (const row of rows.filter((candidate) => candidate.engine === DEFAULT_ENGINE)) {
    const { kind, modules } = row;
    const size = modules.toLocaleString('en');
    if (modules === 1000 && kind === 'kustomization') {
      goal('1,000 Kustomization modules converge within 10 s', row.seconds, 's', 10);
      goal(
        'a restart over 1,000 unchanged Kustomization modules ready within 2 s',
        row.restartSeconds,
        's',
        2,
      );
    }
    if (modules === 1000 && kind === 'chart') {
      goal('1,000 chart modules converge within 20 s', row.seconds, 's', 20);
      goal(
        "a chart module's values edit at 1,000 reaches a new revision within 0.2 s",
        row.editSeconds,
        's',
        0.2,
      );
    }
    if (modules === 1000)
      goal(`idle RSS at 1,000 ${kind} modules within 250 MiB`, row.idleRssMiB, 'MiB', 250);
    if (modules === 100) goal(`idle RSS at 100 ${kind} modules within 120 MiB`, row.idleRssMiB, 'MiB', 120);
    const flux = fluxRows.get(modules)?.seconds;
    if (kind === 'kustomization' && flux !== undefined && row.seconds !== undefined)
      console.log(
        `| ${size} modules in at most half of Flux's time | kaddon / Flux ${fixed(row.seconds / flux, 2)} | ${ratio(row.seconds / flux, 0.5)} |`,
      );
  }
}

function printHookOverhead(row: HookOverhead): void {
  console.log(`\n## Hook run overhead (median of ${String(row.runs)} runs)\n`);
  console.log('| hook run | kaddon ms | bash directly ms | overhead per run ms |');
  console.log('| --- | ---: | ---: | ---: |');
  console.log(
    `| runHook, do-nothing hook | ${fixed(row.runHookMs, 1)} | ${fixed(row.bashMs, 1)} | ${fixed(row.runHookMs - row.bashMs, 1)} |`,
  );
  console.log(
    `| beforeHelm with a values patch (runLifecycleHook + values store) | ${fixed(row.lifecycleMs, 1)} | ${fixed(row.bashPatchMs, 1)} | ${fixed(row.lifecycleMs - row.bashPatchMs, 1)} |`,
  );
}

/** The machine's 1-minute load average, printed beside each size: the machine may be shared. */
function loadAverage(): string {
  return os.loadavg()[0]?.toFixed(1) ?? 'n/a';
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (!options) {
    console.log(usage);
    return;
  }
  const helmPath = (await ensureHelm()).helm;
  if (options.compiled) await execa(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  console.error(`# the operator runs ${options.compiled ? 'dist/ (compiled)' : 'src/ through tsx'}`);
  const flux = options.fluxAt.length > 0 ? findFluxPeer(repoRoot) : undefined;
  if (options.fluxAt.length > 0 && flux === undefined)
    throw new Error(
      '--flux: no bench/out/flux/kustomize-controller; run bench/flux/build-kustomize-controller.sh first',
    );
  const rows: ConvergeTiming[] = [];
  const fluxRows = new Map<number, FluxTiming>();
  for (const modules of options.modules) {
    for (const kind of options.kinds) {
      console.error(`# ${String(modules)} ${kind} modules … (load average ${loadAverage()})`);
      const tree = kind === 'chart' ? generateChartModulesTree(modules) : generateModulesTree(modules);
      try {
        for (const engine of options.engines) {
          console.error(
            `# ${String(modules)} ${kind} modules, ${engine} delivery (load average ${loadAverage()})`,
          );
          rows.push(await measureConvergence(tree, helmPath, options, engine, kind));
        }
        // Flux's kustomize-controller builds Kustomizations: the peer for that kind of tree.
        if (kind === 'kustomization' && flux && options.fluxAt.includes(modules)) {
          console.error(`# ${String(modules)} modules, Flux … (load average ${loadAverage()})`);
          fluxRows.set(modules, await measureFluxConvergence(repoRoot, flux, tree, TEAM_NAMESPACES));
        }
      } finally {
        removeModulesTree(tree);
      }
    }
  }
  printConvergence(rows);
  if (flux) printFlux(rows, fluxRows);
  printGoals(rows, fluxRows);
  printHookOverhead(await measureHookOverhead(options.hookRuns));
}

await main();
