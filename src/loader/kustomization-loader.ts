import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { displayPath } from '../core/display-path.ts';
import { KustomizeError } from '../core/errors.ts';
import { isWithin } from '../core/path-containment.ts';
import type {
  ComponentEntry,
  Kustomization,
  KustomizationKind,
  KustomizationNode,
  LoadedObject,
  ResourceEntry,
} from '../core/kustomization.ts';
import { KUSTOMIZATION_FILE_NAMES, parseKustomizationFile } from './kustomization-file.ts';
import { decodeUtf8, InputFileError, isSymlinkLoop, readRegularFile, symlinkLoop } from './input-file.ts';
import { parseResourceFile } from './resource-file.ts';
import { parseYamlDocuments, stringifyYamlStream, type YamlExpansion } from '../core/yaml/yaml.ts';

export interface LoadOptions {
  /** Paths in messages are shown relative to this folder (default: the working directory). */
  readonly displayBase?: string;
  /**
   * When set, every directory and file must resolve (symlinks followed) inside one of these roots.
   * kustomize itself restricts only files; kaddon's modules tree restricts directories too.
   */
  readonly allowedRoots?: readonly string[];
  /** Expands `$(var)` references in every YAML file while reading it (a module's files). */
  readonly expansion?: YamlExpansion;
  /** Accepts `{path | shared, when}` components entries (a module's kustomizations). */
  readonly components?: ComponentResolution;
}

/** How a module's components entries are resolved. */
interface ComponentResolution {
  /** Folders holding shared components, searched in order for `shared: NAME`. */
  readonly sharedRoots: readonly string[];
  /** Decides a `when` condition; `file` is the kustomization that holds it. */
  readonly isEnabled: (when: string, file: string) => boolean;
}

export interface LoadResult {
  readonly node: KustomizationNode;
  readonly warnings: readonly string[];
}

interface LoadContext {
  readonly displayBase: string;
  readonly allowedRoots: readonly string[] | undefined;
  /**
   * Real paths of the directories being loaded, outermost first: cycle detection (kustomize's
   * api/internal/target/kusttarget.go).
   */
  readonly stack: string[];
  /** The kustomization files of `stack`, as shown, for the message when it grows too deep. */
  readonly files: string[];
  /** How many kustomizations were loaded so far, against exponential fan-out. */
  loaded: number;
  readonly warnings: string[];
  readonly expansion: YamlExpansion | undefined;
  readonly components: ComponentResolution | undefined;
}

/** Reads a kustomization directory and everything it references, recursively. */
export function loadKustomization(dir: string, options: LoadOptions = {}): LoadResult {
  const context: LoadContext = {
    displayBase: options.displayBase ?? process.cwd(),
    allowedRoots: options.allowedRoots?.map((root) => realpathSync.native(root)),
    stack: [],
    files: [],
    loaded: 0,
    warnings: [],
    expansion: options.expansion,
    components: options.components,
  };
  const node = loadDirectory(path.resolve(dir), undefined, context);
  return { node, warnings: context.warnings };
}

function loadDirectory(
  dir: string,
  expected: KustomizationKind | undefined,
  context: LoadContext,
): KustomizationNode {
  const display = displayPath(dir, context.displayBase);
  const real = realDirectory(dir, display, context);
  if (context.stack.length >= MAX_KUSTOMIZATION_DEPTH) throw tooDeep(display, context);
  if (++context.loaded > MAX_KUSTOMIZATIONS) throw tooMany(display, context);
  for (const visited of context.stack) {
    if (isWithin(real, visited)) {
      throw new KustomizeError(
        'cycle',
        display,
        `cycle detected: candidate root '${display}' contains visited root '${displayPath(visited, context.displayBase)}'`,
        'Remove the reference that leads back to a kustomization being built.',
      );
    }
  }
  context.stack.push(real);
  const files = context.files.length;
  try {
    return loadNode(dir, real, expected, context);
  } finally {
    context.stack.pop();
    context.files.length = files;
  }
}

/**
 * How deep kustomizations may nest through resources, bases and components (docs/modules.md "Limits
 * on input"): far beyond any real tree, well below what the recursive build could hold.
 */
const MAX_KUSTOMIZATION_DEPTH = 100;

/**
 * How many kustomizations one build may load, counting each time a directory is named: a chain
 * naming the next level twice would otherwise load 2^depth of them (docs/modules.md "Limits on input").
 */
const MAX_KUSTOMIZATIONS = 2_000;

function tooMany(display: string, context: LoadContext): KustomizeError {
  return new KustomizeError(
    'too-deep',
    context.files.at(-1) ?? display,
    `the build loads more than ${String(MAX_KUSTOMIZATIONS)} kustomizations (the chain from '${context.files[0] ?? display}' reaches '${display}' at depth ${String(context.stack.length + 1)})`,
    'A directory is named again and again through resources, bases or components: name each shared base or component once.',
  );
}

function tooDeep(display: string, context: LoadContext): KustomizeError {
  const first = context.files[0] ?? display;
  const last = context.files.at(-1) ?? display;
  return new KustomizeError(
    'too-deep',
    last,
    `kustomizations nest deeper than ${String(MAX_KUSTOMIZATION_DEPTH)} levels: the chain from '${first}' reaches '${display}' at depth ${String(context.stack.length + 1)}`,
    `Flatten the chain of resources, bases and components; kaddon follows at most ${String(MAX_KUSTOMIZATION_DEPTH)} levels.`,
  );
}

function loadNode(
  dir: string,
  real: string,
  expected: KustomizationKind | undefined,
  context: LoadContext,
): KustomizationNode {
  const fileName = findKustomizationFile(dir, context);
  const file = displayPath(path.join(dir, fileName), context.displayBase);
  context.files.push(file);
  const { kind, spec, warnings } = parseKustomizationFile(readText(path.join(dir, fileName), file), file, {
    ...(context.expansion ? { expansion: context.expansion } : {}),
    componentEntries: context.components !== undefined,
  });
  context.warnings.push(...warnings);
  checkExpectedKind(kind, expected, displayPath(dir, context.displayBase));
  const files = new Map<string, Uint8Array>();
  const filePaths = new Map<string, string>();
  const readFile = (entry: string, isYaml: boolean): void => {
    if (files.has(entry)) return;
    const absolute = resolveInside(dir, real, entry, file, context);
    const shown = displayPath(absolute, context.displayBase);
    const bytes = readEntryBytes(absolute, shown);
    files.set(entry, isYaml && context.expansion ? expandYamlFile(bytes, shown, context.expansion) : bytes);
    filePaths.set(entry, shown);
  };
  const { yaml, data } = referencedFiles(spec, dir);
  for (const entry of yaml) readFile(entry, true);
  for (const entry of data) readFile(entry, false);
  const generators = (spec.generators ?? []).map((entry) => loadEntry(dir, real, entry, file, context));
  // A generator configuration's files are read from the kustomization that lists it under
  // `generators`, wherever the configuration itself lives (kustomize runs it with that loader).
  for (const entry of generatorDataFiles(generators)) {
    if (existsSync(path.resolve(dir, entry))) readFile(entry, false);
  }
  return {
    dir: displayPath(dir, context.displayBase),
    file,
    kind,
    spec,
    resources: (spec.resources ?? []).map((entry) => loadEntry(dir, real, entry, file, context)),
    components: (spec.components ?? []).flatMap((entry) => loadComponentEntry(dir, entry, file, context)),
    generators,
    transformers: (spec.transformers ?? []).map((entry) => loadEntry(dir, real, entry, file, context)),
    validators: (spec.validators ?? []).map((entry) => loadEntry(dir, real, entry, file, context)),
    files,
    filePaths,
  };
}

function checkExpectedKind(
  kind: KustomizationKind,
  expected: KustomizationKind | undefined,
  dir: string,
): void {
  if (expected === 'Kustomization' && kind === 'Component') {
    throw new KustomizeError(
      'wrong-kind',
      dir,
      `expected kind != 'Component' for path '${dir}': a Component cannot be listed in resources`,
      'Move it to the components field.',
    );
  }
  if (expected === 'Component' && kind !== 'Component') {
    throw new KustomizeError(
      'wrong-kind',
      dir,
      `expected kind 'Component' for path '${dir}' but got '${kind}'`,
      'List a Kustomization under resources, or make the directory a kind: Component.',
    );
  }
}

/**
 * Every file a kustomization names outside `resources`, `components` and the plugin fields:
 * YAML files (patches, configurations, replacements) and data files (generator sources).
 */
function referencedFiles(spec: Kustomization, dir: string): { yaml: string[]; data: string[] } {
  const out: string[] = [...(spec.configurations ?? []), ...(spec.crds ?? [])];
  for (const patch of spec.patches ?? []) if (typeof patch.path === 'string') out.push(patch.path);
  for (const patch of spec.patchesJson6902 ?? []) if (typeof patch.path === 'string') out.push(patch.path);
  for (const replacement of spec.replacements ?? []) {
    if (typeof replacement.path === 'string') out.push(replacement.path);
  }
  // A patchesStrategicMerge entry is a file when one exists, else an inline patch (kustomize's
  // api/internal/builtins/PatchTransformer.go).
  for (const entry of spec.patchesStrategicMerge ?? []) {
    if (!entry.includes('\n') && existsSync(path.resolve(dir, entry))) out.push(entry);
  }
  const data: string[] = [];
  for (const generator of [...(spec.configMapGenerator ?? []), ...(spec.secretGenerator ?? [])]) {
    for (const source of generator.files ?? []) data.push(filePartOf(source));
    data.push(...(generator.envs ?? []));
    if (generator.env) data.push(generator.env);
  }
  return { yaml: out, data };
}

/** The data files the builtin generator configurations among `entries` name (a directory's resources included). */
function generatorDataFiles(entries: readonly ResourceEntry[]): string[] {
  return entries.flatMap((entry) => {
    if (entry.type === 'directory') return generatorDataFiles(entry.node.resources);
    return entry.objects.flatMap(({ obj }) => {
      if (obj.kind !== 'ConfigMapGenerator' && obj.kind !== 'SecretGenerator') return [];
      const strings = (value: unknown): string[] =>
        Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
      return [
        ...strings(obj.files).map(filePartOf),
        ...strings(obj.envs),
        ...(typeof obj.env === 'string' ? [obj.env] : []),
      ];
    });
  });
}

/** A module's YAML file with its references expanded, written back as YAML for the pipeline. */
function expandYamlFile(bytes: Uint8Array, file: string, expansion: YamlExpansion): Uint8Array {
  const text = Buffer.from(bytes).toString('utf8');
  if (!text.includes('$')) return bytes;
  const documents = parseYamlDocuments(text, file, expansion).map((doc) => doc.value);
  return Buffer.from(stringifyYamlStream(documents));
}

/** A components entry: a path, or in a module `{path | shared, when}`; a false `when` drops it. */
function loadComponentEntry(
  dir: string,
  entry: string | ComponentEntry,
  file: string,
  context: LoadContext,
): KustomizationNode[] {
  if (typeof entry === 'string') return [loadComponent(dir, entry, file, context)];
  const resolution = context.components;
  if (!resolution) throw new Error(`component entries are only accepted in module mode (${file})`);
  if (entry.when !== undefined && !resolution.isEnabled(entry.when, file)) return [];
  if (entry.path !== undefined) return [loadComponent(dir, entry.path, file, context)];
  return [loadSharedComponent(entry.shared ?? '', resolution.sharedRoots, file, context)];
}

/** `shared: NAME` names a folder directly inside one of the shared roots; nothing else. */
function loadSharedComponent(
  name: string,
  roots: readonly string[],
  file: string,
  context: LoadContext,
): KustomizationNode {
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name)) {
    throw new KustomizeError(
      'path-not-allowed',
      file,
      `shared component name '${name}' is not a plain name`,
      'A shared component is named by its folder name (lowercase letters, digits and dashes), never a path.',
    );
  }
  const root = roots.find((candidate) => isDirectory(path.join(candidate, name)));
  if (root === undefined) {
    throw new KustomizeError(
      'path-not-found',
      file,
      `shared component '${name}' not found in ${roots.map((r) => displayPath(r, context.displayBase)).join(', ') || 'any components folder'}`,
      'Check the name, or add the folder holding it to the components search path (KADDON_COMPONENTS_PATH).',
    );
  }
  return loadDirectory(path.join(root, name), 'Component', context);
}

/** `key=path` names a file under another key; the path is after the first `=`. */
function filePartOf(source: string): string {
  const eq = source.indexOf('=');
  return eq < 0 ? source : source.slice(eq + 1);
}

function loadEntry(
  dir: string,
  real: string,
  entry: string,
  file: string,
  context: LoadContext,
): ResourceEntry {
  if (isRemote(entry)) {
    throw new KustomizeError(
      'path-not-allowed',
      file,
      `'${entry}' is a remote resource; kaddon builds only what is on disk`,
      'Vendor the remote base into the tree (or sync the tree from Git) and refer to it by a relative path.',
    );
  }
  if (entry.includes('\n')) {
    return {
      type: 'file',
      entry,
      path: file,
      objects: parseResourceFile(entry, `${file} (inline)`, context.expansion),
    };
  }
  const absolute = path.resolve(dir, entry);
  if (isDirectory(absolute)) {
    return { type: 'directory', entry, node: loadDirectory(absolute, 'Kustomization', context) };
  }
  if (!existsSync(absolute)) {
    if (isSymlinkLoop(absolute)) throw symlinkLoop(displayPath(absolute, context.displayBase));
    throw new KustomizeError(
      'path-not-found',
      file,
      `accumulating resources from '${entry}': ${displayPath(absolute, context.displayBase)} does not exist`,
      'Correct the path or create the file.',
    );
  }
  const resolved = resolveInside(dir, real, entry, file, context);
  const shown = displayPath(resolved, context.displayBase);
  const objects: LoadedObject[] = parseResourceFile(readText(resolved, shown), shown, context.expansion);
  return { type: 'file', entry, path: shown, objects };
}

function loadComponent(dir: string, entry: string, file: string, context: LoadContext): KustomizationNode {
  if (isRemote(entry)) {
    throw new KustomizeError(
      'path-not-allowed',
      file,
      `component '${entry}' is remote; kaddon builds only what is on disk`,
      'Vendor the component into the tree and refer to it by a relative path.',
    );
  }
  const absolute = path.resolve(dir, entry);
  if (!existsSync(absolute)) {
    if (isSymlinkLoop(absolute)) throw symlinkLoop(displayPath(absolute, context.displayBase));
    throw new KustomizeError(
      'path-not-found',
      file,
      `component '${entry}' must build at directory: ${displayPath(absolute, context.displayBase)} is not a valid directory`,
      'Correct the path or create the component.',
    );
  }
  if (!isDirectory(absolute)) {
    throw new KustomizeError(
      'wrong-kind',
      file,
      `component '${entry}' must build at directory: '${displayPath(absolute, context.displayBase)}': file is not directory`,
      'A components entry names a directory holding a kind: Component kustomization.',
    );
  }
  return loadDirectory(absolute, 'Component', context);
}

/**
 * The kustomization file of `dir`. Only a regular file counts: kustomize does not follow a symlinked
 * kustomization file (it reports the directory as having none), and neither does kaddon, so the file
 * cannot lead outside the tree.
 */
function findKustomizationFile(dir: string, context: LoadContext): string {
  const present = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && (KUSTOMIZATION_FILE_NAMES as readonly string[]).includes(entry.name))
    .map((entry) => entry.name);
  const shown = displayPath(dir, context.displayBase);
  if (present.length > 1) {
    throw new KustomizeError(
      'kustomization-invalid',
      shown,
      `Found multiple kustomization files under: ${shown} (${present.join(', ')})`,
      'Keep exactly one of them.',
    );
  }
  const found = present[0];
  if (found === undefined) {
    throw new KustomizeError(
      'kustomization-not-found',
      shown,
      `unable to find one of 'kustomization.yaml', 'kustomization.yml' or 'Kustomization' in directory '${shown}'`,
      'Add a kustomization.yaml to the directory or correct the path that names it.',
    );
  }
  return found;
}

/** A file must resolve, symlinks followed, inside its kustomization's root (or an allowed root). */
function resolveInside(
  dir: string,
  realDir: string,
  entry: string,
  file: string,
  context: LoadContext,
): string {
  const absolute = path.resolve(dir, entry);
  let real: string;
  try {
    // The native realpath is one call; node's own lstats every component of the path.
    real = realpathSync.native(absolute);
  } catch (error: unknown) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP')
      throw symlinkLoop(displayPath(absolute, context.displayBase), error);
    throw new KustomizeError(
      'path-not-found',
      file,
      `'${entry}': ${displayPath(absolute, context.displayBase)} does not exist`,
      'Correct the path or create the file.',
      { cause: error },
    );
  }
  if (!isWithin(realDir, real)) {
    throw new KustomizeError(
      'path-not-allowed',
      file,
      `security; file '${displayPath(real, context.displayBase)}' is not in or below '${displayPath(realDir, context.displayBase)}'`,
      `Move '${entry}' inside the kustomization's directory; files may not come from outside it (symlinks included).`,
    );
  }
  return real;
}

function realDirectory(dir: string, display: string, context: LoadContext): string {
  let real: string;
  try {
    real = realpathSync.native(dir);
  } catch (error: unknown) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw symlinkLoop(display, error);
    throw new KustomizeError(
      'path-not-found',
      display,
      `must build at directory: not a valid directory: '${display}' does not exist`,
      'Correct the path that names it.',
      { cause: error },
    );
  }
  if (!statSync(real).isDirectory())
    throw new KustomizeError(
      'path-not-found',
      display,
      `must build at directory: '${display}' is a file, not a directory`,
      'Name the directory that holds the kustomization.yaml.',
    );
  const roots = context.allowedRoots;
  if (roots && !roots.some((root) => isWithin(root, real))) {
    throw new KustomizeError(
      'path-not-allowed',
      display,
      `directory '${display}' resolves to '${real}', outside the allowed roots`,
      `Keep kustomizations inside ${roots.join(', ')}; symlinks may not lead outside.`,
    );
  }
  return real;
}

/** Larger files a kustomization names are refused rather than read into memory. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

/**
 * A file a kustomization names (resource, patch, generator source): a regular file of sane size,
 * never a pipe, socket or device (src/loader/input-file.ts).
 */
function readEntryBytes(absolute: string, display: string): Uint8Array {
  const bytes = readRegularFile(absolute, display, MAX_FILE_BYTES);
  if (bytes === undefined)
    throw new KustomizeError(
      'path-not-found',
      display,
      `'${display}' is a directory, not a file`,
      'Name a file here; a directory of resources belongs in resources as a kustomization.',
    );
  return bytes;
}

/** A kustomization or resource file's text: UTF-8, from a regular file. */
function readText(absolute: string, display: string): string {
  let bytes: Uint8Array | undefined;
  try {
    bytes = readRegularFile(absolute, display, MAX_FILE_BYTES);
  } catch (error: unknown) {
    if (error instanceof InputFileError) throw error;
    throw new KustomizeError(
      'path-not-found',
      display,
      'cannot read the file',
      'Check that it exists and is readable.',
      {
        cause: error,
      },
    );
  }
  if (bytes === undefined)
    throw new KustomizeError(
      'path-not-found',
      display,
      `'${display}' is a directory, not a file`,
      'Name a file here, or a directory holding a kustomization.',
    );
  return decodeUtf8(bytes, display);
}

/** URLs and go-getter style addresses, which kustomize would fetch. */
function isRemote(entry: string): boolean {
  return (
    /^[a-z][a-z0-9+.-]*:\/\//i.test(entry) ||
    /^(?:git@|github\.com\/|gitlab\.com\/|bitbucket\.org\/)/.test(entry)
  );
}

function isDirectory(absolute: string): boolean {
  try {
    return statSync(absolute).isDirectory();
  } catch {
    return false;
  }
}
