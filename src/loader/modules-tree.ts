import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { readModuleManifest, type DriftIgnoreRule } from './module-manifest.ts';
import { orderByRequirements } from './module-requirements.ts';
import { readTreeFile } from './tree-file.ts';
import { KaddonError } from '../core/errors.ts';
import { isJsonObject, type JsonObject } from '../core/json.ts';
import { isValidModuleName, moduleValuesKey, parseModuleDirName } from '../core/module-name.ts';
import { mergeValues, parseEnabledFlag, ValuesError, type StaticValues } from '../core/values.ts';
import { parseYamlDocument } from '../core/yaml/yaml.ts';
import { KUSTOMIZATION_FILE_NAMES } from './kustomization-file.ts';

/** How a module's manifests are made: a kustomization, a Helm chart, or none (hooks only). */
type ModuleSource = 'kustomization' | 'chart' | 'none';

export interface ModuleDefinition {
  readonly name: string;
  readonly valuesKey: string;
  readonly order: number;
  /** The module's directory, absolute. */
  readonly dir: string;
  readonly source: ModuleSource;
  /** `requirements.modules` of its module.yaml: modules that must be Ready before it runs. */
  readonly requires: readonly string[];
  /** `healthTimeout` of its module.yaml (docs/module-status.md "Health"). */
  readonly healthTimeoutMs?: number;
  /** `drift.ignore` of its module.yaml (docs/drift.md "Ignoring fields"). */
  readonly driftIgnore?: readonly DriftIgnoreRule[];
}

/** A modules tree as found on disk (docs/modules.md). */
export interface ModulesTree {
  /** The modules directories, absolute, in MODULES_DIR order. */
  readonly dirs: readonly string[];
  /** Modules sorted by order, then name, each after the modules it requires. */
  readonly modules: readonly ModuleDefinition[];
  readonly statics: StaticValues;
  readonly warnings: readonly string[];
}

/** A module directory whose name cannot be a module's. */
class ModuleNameError extends KaddonError {
  readonly code = 'module-name-invalid';
  constructor(dir: string, name: string) {
    super(
      `module directory '${dir}': '${name}' is not a valid module name.`,
      'Name module directories [NNN-]kebab-case-name, restorable from its camelCase values key (e.g. 010-echo-server).',
    );
  }
}

export interface ModulesTreeOptions {
  /** Order of modules without a numeric prefix (ADDON_OPERATOR_UNNUMBERED_MODULES_ORDER, default 1). */
  readonly unnumberedOrder?: number;
}

export function loadModulesTree(dirs: readonly string[], options: ModulesTreeOptions = {}): ModulesTree {
  const absolute = dirs.map((dir) => path.resolve(dir));
  const warnings: string[] = [];
  const byName = new Map<string, ModuleDefinition>();
  for (const dir of absolute) {
    if (!isDirectory(dir))
      throw new ValuesError(
        dir,
        'the modules directory does not exist',
        'Point MODULES_DIR at a directory of modules.',
      );
    for (const entry of readdirSync(dir).sort()) {
      const moduleDir = path.join(dir, entry);
      if (entry.startsWith('.') || !isDirectory(moduleDir)) continue;
      const { name, order } = parseModuleDirName(entry);
      if (!isValidModuleName(name)) throw new ModuleNameError(moduleDir, name);
      const existing = byName.get(name);
      if (existing) {
        warnings.push(`module '${name}' in ${moduleDir} is ignored: ${existing.dir} defines it first`);
        continue;
      }
      const source = moduleSource(moduleDir);
      if (source === 'kustomization' && existsSync(path.join(moduleDir, 'Chart.yaml')))
        warnings.push(
          `module '${name}': ${moduleDir} has a kustomization and a Chart.yaml; it is rendered from its kustomization and the chart is not rendered`,
        );
      byName.set(name, {
        name,
        valuesKey: moduleValuesKey(name),
        order: order ?? options.unnumberedOrder ?? 1,
        dir: moduleDir,
        source,
        ...readModuleManifest(moduleDir, dir),
      });
    }
  }
  // docs/modules.md "module.yaml": a module comes after the modules it requires; numbers order the rest.
  const modules = orderByRequirements(
    [...byName.values()].sort(
      (a, b) => a.order - b.order || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    ),
  );
  return { dirs: absolute, modules, statics: readStaticValues(absolute, modules), warnings };
}

/**
 * A kustomization file makes a kustomization module even beside Chart.yaml or templates/ (a
 * folder a kustomization may use for its own files); otherwise Chart.yaml or templates/ make a
 * chart module, as they make a HelmModule in addon-operator (docs/modules.md "Helm chart modules").
 */
function moduleSource(dir: string): ModuleSource {
  if (KUSTOMIZATION_FILE_NAMES.some((name) => existsSync(path.join(dir, name)))) return 'kustomization';
  if (existsSync(path.join(dir, 'Chart.yaml')) || isDirectory(path.join(dir, 'templates'))) return 'chart';
  return 'none';
}

function readStaticValues(dirs: readonly string[], modules: readonly ModuleDefinition[]): StaticValues {
  let root: JsonObject = {};
  for (const dir of dirs) {
    const values = readValuesFile(path.join(dir, 'values.yaml'), dir);
    root = (mergeValues(root, values) as JsonObject | undefined) ?? root;
  }
  const rootFile = path.join(dirs[0] ?? '.', 'values.yaml');
  checkEnabledFlags(root, rootFile);
  checkSections(root, rootFile, ['global', ...modules.map((module) => moduleValuesKey(module.name))]);
  const byModule = new Map<string, JsonObject>();
  for (const module of modules) {
    const file = path.join(module.dir, 'values.yaml');
    const values = readValuesFile(file, path.dirname(module.dir));
    checkEnabledFlags(values, file);
    checkSections(values, file, [moduleValuesKey(module.name)]);
    byModule.set(module.name, values);
  }
  return { root, modules: byModule };
}

/** Reads a values.yaml inside `root`; a missing file is empty values. */
function readValuesFile(file: string, root: string): JsonObject {
  const text = readTreeFile(file, root);
  if (text === undefined) return {};
  const value = parseYamlDocument(text, file) ?? {};
  if (!isJsonObject(value))
    throw new ValuesError(
      file,
      'values.yaml must be a map',
      'Write values as a YAML map: global, <moduleName>, <moduleName>Enabled.',
    );
  return value;
}

/** The `global` section and each module's section are maps (or empty), as addon-operator reads them. */
function checkSections(values: JsonObject, file: string, keys: readonly string[]): void {
  for (const key of keys) {
    const section = values[key];
    if (section !== undefined && section !== null && !isJsonObject(section))
      throw new ValuesError(
        file,
        `the section '${key}' is ${Array.isArray(section) ? 'a list' : `a ${typeof section}`}, not a map`,
        `Write '${key}' as a YAML map of values.`,
      );
  }
}

function checkEnabledFlags(values: JsonObject, file: string): void {
  for (const [key, value] of Object.entries(values)) {
    if (key.endsWith('Enabled')) parseEnabledFlag(value, file, key, false);
  }
}

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}
