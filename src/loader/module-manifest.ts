import path from 'node:path';
import { closestName } from '../core/closest-name.ts';
import { KaddonError } from '../core/errors.ts';
import { compileRe2 } from '../core/re2.ts';
import { isTooLongForTimer, parseGoDuration, TOO_LONG_HINT, tooLongProblem } from '../core/go-duration.ts';
import { isJsonObject, type JsonObject } from '../core/json.ts';
import { parseYamlDocument } from '../core/yaml/yaml.ts';
import { readTreeFile } from './tree-file.ts';
import type { Selector } from '../core/kustomization.ts';

/** What a module's `module.yaml` says (docs/modules.md "module.yaml"). */
export interface ModuleManifest {
  /** Modules that must be enabled, delivered and Ready before this one runs. */
  readonly requires: readonly string[];
  /** Overrides KADDON_HEALTH_TIMEOUT for this module. */
  readonly healthTimeoutMs?: number;
  /** `drift.ignore`: fields drift detection leaves alone (docs/drift.md "Ignoring fields"). */
  readonly driftIgnore?: readonly DriftIgnoreRule[];
}

/** JSON pointers left out of drift detection on the objects the target selects (all without one). */
export interface DriftIgnoreRule {
  readonly paths: readonly string[];
  readonly target?: Selector;
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

/**
 * The keys module.yaml may have: kaddon's, and those Deckhouse reads, which kaddon accepts and
 * ignores (docs/modules.md "module.yaml"). Any other key is a typo until proven otherwise.
 */
const MANIFEST_KEYS: KeyTable = {
  used: ['requirements', 'healthTimeout', 'drift'],
  ignored: [
    'name',
    'weight',
    'tags',
    'stage',
    'description',
    'descriptions',
    'subsystems',
    'namespace',
    'critical',
    'disable',
    'exclusiveGroup',
    'accessibility',
    'update',
  ],
};
const REQUIREMENTS_KEYS: KeyTable = {
  used: ['modules'],
  ignored: ['deckhouse', 'kubernetes', 'bootstrapped'],
};
const DRIFT_KEYS: KeyTable = { used: ['ignore'], ignored: [] };
const IGNORE_RULE_KEYS: KeyTable = { used: ['paths', 'target'], ignored: [] };

interface KeyTable {
  readonly used: readonly string[];
  readonly ignored: readonly string[];
}

/** An unknown key is an error with the key it was likely meant to be. */
function checkKeys(map: JsonObject, table: KeyTable, where: string, file: string): void {
  const known = [...table.used, ...table.ignored];
  for (const key of Object.keys(map)) {
    if (known.includes(key)) continue;
    const meant = closestName(key, table.used) ?? closestName(key, known);
    throw new ModuleManifestError(
      file,
      `unknown key '${where}${key}'`,
      meant === undefined
        ? `${where === '' ? 'module.yaml' : `'${where.slice(0, -1)}'`} takes ${table.used.join(', ')}.`
        : `Did you mean '${where}${meant}'?`,
    );
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
  checkKeys(manifest, MANIFEST_KEYS, '', file);
  return {
    requires: requiredModules(manifest, file),
    ...healthTimeout(manifest, file),
    ...driftIgnore(manifest, file),
  };
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
  checkKeys(requirements, REQUIREMENTS_KEYS, 'requirements.', file);
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
  if (isTooLongForTimer(ms))
    throw new ModuleManifestError(file, `healthTimeout ${tooLongProblem(value as string)}`, TOO_LONG_HINT);
  return { healthTimeoutMs: ms };
}

const SELECTOR_FIELDS = [
  'group',
  'version',
  'kind',
  'name',
  'namespace',
  'labelSelector',
  'annotationSelector',
];
const IGNORE_HINT =
  'Write `drift: {ignore: [{paths: ["/spec/replicas"], target: {kind: Deployment}}]}`: paths are JSON pointers, target selects as a kustomize patch target does.';

function driftIgnore(manifest: JsonObject, file: string): { driftIgnore?: DriftIgnoreRule[] } {
  const drift = manifest.drift;
  if (drift === undefined || drift === null) return {};
  if (!isJsonObject(drift) || !(drift.ignore === undefined || Array.isArray(drift.ignore)))
    throw new ModuleManifestError(file, '`drift` must be a map with an `ignore` list', IGNORE_HINT);
  checkKeys(drift, DRIFT_KEYS, 'drift.', file);
  return {
    driftIgnore: (drift.ignore ?? []).map((rule, index) => ignoreRule(rule, `drift.ignore[${index}]`, file)),
  };
}

function ignoreRule(rule: unknown, where: string, file: string): DriftIgnoreRule {
  if (!isJsonObject(rule) || !Array.isArray(rule.paths) || rule.paths.length === 0)
    throw new ModuleManifestError(file, `${where} needs a list of \`paths\``, IGNORE_HINT);
  checkKeys(rule, IGNORE_RULE_KEYS, `${where}.`, file);
  const paths = rule.paths.map((pointer) => {
    if (typeof pointer !== 'string' || !isJsonPointer(pointer))
      throw new ModuleManifestError(
        file,
        `${where}: ${JSON.stringify(pointer)} is not a JSON pointer`,
        'A JSON pointer starts with / and escapes ~ as ~0 and / as ~1 (RFC 6901), e.g. /spec/replicas; "" is the whole object.',
      );
    return pointer;
  });
  if (rule.target === undefined || rule.target === null) return { paths };
  if (!isJsonObject(rule.target))
    throw new ModuleManifestError(file, `${where}.target must be a map`, IGNORE_HINT);
  const target: Record<string, string> = {};
  for (const [key, value] of Object.entries(rule.target)) {
    if (!SELECTOR_FIELDS.includes(key) || typeof value !== 'string')
      throw new ModuleManifestError(
        file,
        `${where}.target.${key} is not a selector field with a string value`,
        `Use ${SELECTOR_FIELDS.join(', ')}.`,
      );
    if (REGEX_FIELDS.includes(key)) checkPattern(value, `${where}.target.${key}`, file);
    target[key] = value;
  }
  return { paths, target };
}

/** RFC 6901: "" or "/"-separated tokens in which `~` is only ever `~0` or `~1`. */
function isJsonPointer(pointer: string): boolean {
  return pointer === '' || (pointer.startsWith('/') && !/~(?![01])/.test(pointer));
}

/** The selector fields matched as Go (RE2) regular expressions, as a kustomize patch target's are. */
const REGEX_FIELDS = ['group', 'version', 'kind', 'name', 'namespace'];

function checkPattern(pattern: string, where: string, file: string): void {
  try {
    compileRe2(pattern);
  } catch {
    throw new ModuleManifestError(
      file,
      `${where} ${JSON.stringify(pattern)} is not a valid regular expression`,
      'Selector fields are Go (RE2) regular expressions matched against the whole value: escape special characters, and use no lookaround or backreferences.',
    );
  }
}
