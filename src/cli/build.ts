import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { tmpdir } from 'node:os';
import { parseArgs } from 'node:util';
import { KaddonError } from '../core/errors.ts';
import { isJsonObject, type JsonObject } from '../core/json.ts';
import type { Resource } from '../core/resource.ts';
import { EMPTY_CONFIG_VALUES, parseConfigValues, ValuesError, type ConfigValues } from '../core/values.ts';
import { parseYamlDocument, stringifyYaml } from '../core/yaml/yaml.ts';
import { loadJqEngine } from '../jq/jq-engine.ts';
import { jqTimeoutMs } from './jq-timeout.ts';
import { createHookRunDeps } from '../hooks/run/run-hook-deps.ts';
import { hookEnvironment } from '../hooks/run/run-hook-env.ts';
import { hookEnv, resolveNamespace } from '../config/operator-config.ts';
import { SettingReader } from '../config/setting-reader.ts';

import { buildTree, type BuildTreeOptions } from '../runtime/build/build-tree.ts';
import { parseSnapshotObjects } from '../runtime/build/prepare-values.ts';
import type { UnresolvedReference } from '../runtime/build/render-tree.ts';
import { buildChartsOptions } from './build-helm.ts';
import { stderrLogger, type CliIo } from './cli-io.ts';
import { componentRoots, splitPaths } from '../runtime/build/component-roots.ts';
import { checkoutGitSource } from './build-git-source.ts';
import { gitSourceOptions, gitSourceUsage } from './git-source.ts';
import { globalHooksDirOf } from '../runtime/build/git-revision-tree.ts';
import { stopOnSignals, throwIfStopped } from './stop-on-signals.ts';
import { UsageError } from './usage-error.ts';
import { KUSTOMIZATION_FILE_NAMES } from '../loader/kustomization-file.ts';
import type { DriftIgnoreRule } from '../loader/module-manifest.ts';

export const buildUsage = `Usage: kaddon build [MODULES_DIR...] [options]
       kaddon build --git-url URL [--git-ref REF] [--git-subpath DIR] [options]

Renders every enabled module of a modules tree offline and prints the manifests as a
YAML stream, each document marked with its module and source file. MODULES_DIR
defaults to $MODULES_DIR or $ADDON_OPERATOR_MODULES_DIR (colon-separated). With --git-url the tree is the revision
of a Git repository (checked out under --git-cache-dir, symlinks leaving it refused);
components/ and global-hooks/ beside --git-subpath are used unless flags say otherwise.
Chart modules (Chart.yaml or templates/, as in addon-operator) are rendered with
\`helm template\`; only then is helm needed.

Options:
  --module NAME            print only this module's slice
  --values FILE            extra values (the layout of modules/values.yaml)
  --config-values FILE     config values (the ConfigMap's layout: global, <module>, <module>Enabled)
  --components-path DIRS   more folders of shared components (colon-separated;
                           also $KADDON_COMPONENTS_PATH)
  --run-hooks              run the hooks that produce values first: global onStartup and
                           beforeAll, enabled scripts, module onStartup and beforeHelm
  --global-hooks-dir DIR   global hooks and global openapi/ (default $GLOBAL_HOOKS_DIR,
                           $ADDON_OPERATOR_GLOBAL_HOOKS_DIR or $SHELL_OPERATOR_HOOKS_DIR)
  --snapshots FILE         objects for hooks' kubernetes bindings with --run-hooks:
                           {<hook>: {<binding>: [objects]}} (default: empty snapshots)
  --hook-timeout SECONDS   stop a hook that runs longer (default 600)
  --strict                 fail when a $(var) reference is left unresolved
  --chart-renderer WHAT    what renders chart modules: native (default: kaddon-chart-renderer,
                           Helm's own engine in one process), helm (helm template), or a path
                           (default $KADDON_CHART_RENDERER)
  --helm-path PATH         the helm binary for chart modules with --chart-renderer helm, or when
                           the renderer is not built (default $HELM_BIN_PATH or
                           $KADDON_HELM_PATH, else helm on PATH)
  --namespace NS           the release namespace chart modules are rendered for
                           (default $ADDON_OPERATOR_NAMESPACE, else default)
  -o, --output yaml|json   output format (default yaml)
  -h, --help               show this help

${gitSourceUsage}`;

/** `$(var)` references left unresolved under --strict. */
export class UnresolvedVarsError extends KaddonError {
  readonly code = 'vars-unresolved';
  constructor(refs: readonly UnresolvedReference[]) {
    super(
      `build: ${refs.length} $(var) reference(s) are unresolved: ${refs.map(describeRef).join('; ')}.`,
      'Define the values (values.yaml, --values, --config-values), correct the names, or escape a literal $ as $$.',
    );
  }
}

/**
 * A directory without a single module folder is more likely the wrong directory than an empty
 * platform: printing nothing with exit 0 would hide that (a kustomization wants `kaddon kustomize`).
 */
class EmptyModulesTreeError extends KaddonError {
  readonly code = 'modules-tree-empty';
  constructor(dirs: readonly string[]) {
    const kustomization = dirs.some((dir) =>
      KUSTOMIZATION_FILE_NAMES.some((name) => existsSync(path.join(dir, name))),
    );
    super(
      `modules tree '${dirs.join(':')}': it holds no module directory.`,
      kustomization
        ? 'It is a kustomization: build it with `kaddon kustomize DIR`.'
        : 'Point at the directory that holds the modules, one folder each (e.g. 010-echo-server/, see docs/modules.md).',
    );
  }
}

function describeRef(ref: UnresolvedReference): string {
  return `module '${ref.module}' ${ref.file}:${ref.line} $(${ref.name})`;
}

/** The flags `kaddon build` reads; `kaddon diff` takes the same inputs. */
export const buildFlags = {
  module: { type: 'string' },
  values: { type: 'string' },
  'config-values': { type: 'string' },
  'components-path': { type: 'string' },
  strict: { type: 'boolean', default: false },
  'run-hooks': { type: 'boolean', default: false },
  'global-hooks-dir': { type: 'string' },
  snapshots: { type: 'string' },
  'hook-timeout': { type: 'string' },
  'helm-path': { type: 'string' },
  'chart-renderer': { type: 'string' },
  namespace: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  ...gitSourceOptions,
} as const;

type BuildFlagValues = ReturnType<typeof parseArgs<{ options: typeof buildFlags }>>['values'];

/** `kaddon build`: wiring only; the work is renderTree. */
export async function runBuild(args: readonly string[], io: CliIo): Promise<void> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: { ...buildFlags, output: { type: 'string', short: 'o', default: 'yaml' } },
  });
  if (values.help) {
    io.stdout(`${buildUsage}\n`);
    return;
  }
  if (values.output !== 'yaml' && values.output !== 'json') {
    throw new UsageError(`--output must be yaml or json, not '${values.output}'`, buildUsage);
  }
  const { slices } = await renderForCli(values, positionals, io, buildUsage);
  io.stdout(values.output === 'json' ? printJson(slices) : printYaml(slices));
}

/** A modules tree rendered as `kaddon build` renders it, from its flags. */
export interface CliRender {
  /** Every module of the tree, enabled or not. */
  readonly known: readonly string[];
  readonly enabled: readonly string[];
  /** The slices printed: every enabled module's, or the one --module names. */
  readonly slices: [string, readonly Resource[]][];
  /** Each module's `drift.ignore` rules (module.yaml), for `kaddon diff`. */
  readonly driftIgnore: (module: string) => readonly DriftIgnoreRule[];
}

/** Renders the tree the flags name (directories, or a Git revision), with warnings on stderr. */
export async function renderForCli(
  values: BuildFlagValues,
  positionals: readonly string[],
  io: CliIo,
  usage: string,
  overrides: Pick<BuildTreeOptions, 'recordedPatches'> & { readonly config?: ConfigValues } = {},
): Promise<CliRender> {
  const read = new SettingReader(process.env, {
    'helm-path': values['helm-path'],
    'chart-renderer': values['chart-renderer'],
    namespace: values.namespace,
  });
  const stop = stopOnSignals();
  const stopSignal = stop.signal;
  try {
    const git =
      values['git-url'] === undefined
        ? undefined
        : await checkoutGitSource(values, [...positionals], io, stopSignal).catch((error: unknown) => {
            // git was ended by the signal: say so, not the failure it caused.
            throwIfStopped(stopSignal, 'build');
            throw error;
          });
    const dirs = git
      ? [git.modulesDir]
      : splitPaths(positionals.length > 0 ? positionals.join(':') : read.text('modulesDir', ''));
    if (dirs.length === 0)
      throw new UsageError(
        'name a modules directory or set MODULES_DIR (or ADDON_OPERATOR_MODULES_DIR)',
        usage,
      );
    const jq = await loadJqEngine({ timeoutMs: jqTimeoutMs(read) });
    const result = await buildTree({
      dirs,
      ...(values.values ? { extraValues: readValues(values.values) } : {}),
      config:
        overrides.config ??
        (values['config-values']
          ? parseConfigValues(readYaml(values['config-values']), values['config-values'])
          : EMPTY_CONFIG_VALUES),
      globalHooksDir:
        values['global-hooks-dir'] ?? (git ? globalHooksDirOf(git) : read.find('globalHooksDir')?.value),
      sharedComponentRoots: componentRoots(values['components-path'], dirs),
      jq,
      ...(values['run-hooks']
        ? { hooks: hookOptions(values.snapshots, values['hook-timeout'], { io, stopSignal, read }) }
        : {}),
      ...(overrides.recordedPatches ? { recordedPatches: overrides.recordedPatches } : {}),
      charts: buildChartsOptions(read, resolveNamespace(read, 'build'), tmpdir(), stopSignal),
    });
    throwIfStopped(stopSignal, 'build');
    if (result.tree.modules.length === 0) throw new EmptyModulesTreeError(result.tree.dirs);
    if (result.enabledModules.length === 0)
      io.stderr(
        `warning: none of the ${result.tree.modules.length} module(s) is enabled, so nothing is rendered: enable one with <valuesKey>Enabled: true in values.yaml or --config-values (docs/modules.md)\n`,
      );
    for (const warning of result.warnings) io.stderr(`warning: ${warning}\n`);
    if (values.strict && result.unresolved.length > 0) throw new UnresolvedVarsError(result.unresolved);
    for (const ref of result.unresolved)
      io.stderr(`warning: ${describeRef(ref)} is unresolved and left as written\n`);
    const known = result.tree.modules.map((m) => m.name);
    const slices = selectSlices(result.rendered.slices, values.module, result.enabledModules, known, usage);
    const definitions = new Map(result.tree.modules.map((module) => [module.name, module]));
    return {
      known,
      enabled: result.enabledModules,
      slices,
      driftIgnore: (module) => definitions.get(module)?.driftIgnore ?? [],
    };
  } finally {
    stop.release();
  }
}

function hookOptions(
  snapshotsFile: string | undefined,
  timeout: string | undefined,
  { io, stopSignal, read }: { io: CliIo; stopSignal: AbortSignal; read: SettingReader },
): BuildTreeOptions['hooks'] {
  const seconds = timeout === undefined ? DEFAULT_BUILD_HOOK_TIMEOUT_S : Number(timeout);
  if (!(seconds > 0))
    throw new UsageError(`--hook-timeout must be a number of seconds, not '${timeout ?? ''}'`, buildUsage);
  const logger = stderrLogger(io);
  return {
    runDeps: createHookRunDeps({
      stopSignal,
      logger,
      baseEnv: hookEnvironment(process.env, hookEnv(read)),
      cwd: process.cwd(),
      tmpRoot: tmpdir(),
    }),
    snapshots: snapshotsFile ? parseSnapshotObjects(readYaml(snapshotsFile), snapshotsFile) : {},
    timeoutMs: seconds * 1000,
  };
}

/** A hook run by `build` that takes longer is stopped (its process group ended): 10 minutes. */
const DEFAULT_BUILD_HOOK_TIMEOUT_S = 600;

function selectSlices(
  slices: ReadonlyMap<string, readonly Resource[]>,
  only: string | undefined,
  enabled: readonly string[],
  known: readonly string[],
  usage: string,
): [string, readonly Resource[]][] {
  if (only === undefined) return [...slices];
  if (!known.includes(only))
    throw new UsageError(`--module: no module named '${only}' (modules: ${known.join(', ')})`, usage);
  if (!enabled.includes(only)) throw new UsageError(`--module: module '${only}' is disabled`, usage);
  return [[only, slices.get(only) ?? []]];
}

function printYaml(slices: readonly [string, readonly Resource[]][]): string {
  const documents = slices.flatMap(([module, resources]) =>
    resources.map(
      (resource) => `# module: ${module}\n# source: ${resource.source}\n${stringifyYaml(resource.obj)}`,
    ),
  );
  return documents.join('---\n');
}

function printJson(slices: readonly [string, readonly Resource[]][]): string {
  const items = slices.flatMap(([, resources]) => resources.map((resource) => resource.obj));
  return `${JSON.stringify({ apiVersion: 'v1', kind: 'List', items }, null, 2)}\n`;
}

function readYaml(file: string): ReturnType<typeof parseYamlDocument> {
  if (!existsSync(file)) throw new ValuesError(file, 'the file does not exist', 'Correct the path.');
  return parseYamlDocument(readFileSync(file, 'utf8'), file);
}

function readValues(file: string): JsonObject {
  const value = readYaml(file) ?? {};
  if (!isJsonObject(value))
    throw new ValuesError(
      file,
      'values must be a map',
      'Use the layout of modules/values.yaml: global, <moduleName>, <moduleName>Enabled.',
    );
  return value;
}
