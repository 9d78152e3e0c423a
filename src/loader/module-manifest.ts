import path from 'node:path';
import { KaddonError } from '../core/errors.ts';
import { parseGoDuration } from '../core/go-duration.ts';
import { isJsonObject, type JsonObject } from '../core/json.ts';
import { parseYamlDocument } from '../core/yaml.ts';
import { readTreeFile } from './tree-file.ts';

/** What a module's `module.yaml` says (docs/modules.md "module.yaml"). */
export interface ModuleManifest {
  /** Modules that must be enabled, delivered and Ready before this one runs. */
  readonly requires: readonly string[];
  /** Overrides KADDON_HEALTH_TIMEOUT for this module. */
  readonly healthTimeoutMs?: number;
}

/** A module.yaml, or the requirements between modules, that cannot be used. */
export class ModuleManifestError extends KaddonError {
  readonly code = 'module-manifest-invalid';
  readonly file: string;
  constructor(file: string, problem: string, hint: string) {
    super(`module.yaml '${file}': ${problem}.`, hint);
    this.file = file;
  }
}

/** kaddon modules have no versions yet: a requirement can only ask that the module be there. */
const PRESENT = /^(\*|>=\s*0(\.0){0,2})$/;

export function readModuleManifest(moduleDir: string, root: string): ModuleManifest {
  const file = path.join(moduleDir, 'module.yaml');
  const text = readTreeFile(file, root);
  if (text === undefined) return { requires: [] };
  const manifest = parseYamlDocument(text, file) ?? {};
  if (!isJsonObject(manifest))
    throw new ModuleManifestError(
      file,
      'must be a map',
      'Write module.yaml as a YAML map (requirements, healthTimeout, …).',
    );
  return { requires: requiredModules(manifest, file), ...healthTimeout(manifest, file) };
}

function requiredModules(manifest: JsonObject, file: string): string[] {
  const requirements = manifest.requirements;
  if (requirements === undefined || requirements === null) return [];
  if (!isJsonObject(requirements))
    throw new ModuleManifestError(
      file,
      '`requirements` must be a map',
      'Write `requirements: {modules: {cert-manager: "*"}}`.',
    );
  const modules = requirements.modules;
  if (modules === undefined || modules === null) return [];
  if (!isJsonObject(modules))
    throw new ModuleManifestError(
      file,
      '`requirements.modules` must be a map of module names to constraints',
      'Write `modules: {cert-manager: "*"}`.',
    );
  return Object.entries(modules).map(([name, constraint]) => {
    if (typeof constraint !== 'string' || !PRESENT.test(constraint.trim()))
      throw new ModuleManifestError(
        file,
        `the requirement on module '${name}' is ${JSON.stringify(constraint)}: kaddon modules have no versions, so only "*" or ">= 0" (the module is there) can be met`,
        `Write ${name}: "*".`,
      );
    return name;
  });
}

function healthTimeout(manifest: JsonObject, file: string): { healthTimeoutMs?: number } {
  const value = manifest.healthTimeout;
  if (value === undefined || value === null) return {};
  const ms = typeof value === 'string' ? parseGoDuration(value) : undefined;
  if (ms === undefined || ms <= 0)
    throw new ModuleManifestError(
      file,
      `healthTimeout ${JSON.stringify(value)} is not a positive duration`,
      'Write a Go duration such as 90s or 10m.',
    );
  return { healthTimeoutMs: ms };
}
