import { existsSync } from 'node:fs';
import path from 'node:path';
import { readTreeFile } from './tree-file.ts';
import type { JsonValue } from '../core/json.ts';
import { GLOBAL_OWNER, moduleOwner, type ValuesOwner } from '../core/values.ts';
import { ValuesSchemas, type ValuesSchemaFiles } from '../core/values-schema.ts';
import { parseYamlDocument } from '../core/yaml/yaml.ts';
import type { ModulesTree } from './modules-tree.ts';

/** The schemas of global values and of every module of a tree. */
export interface TreeSchemas {
  readonly global: ValuesSchemas;
  /** By module name; every module of the tree has an entry (maybe without schemas). */
  readonly modules: ReadonlyMap<string, ValuesSchemas>;
}

/**
 * Reads `openapi/config-values.yaml` and `openapi/values.yaml` from a folder (docs/values.md
 * "Validation"). A missing or empty file means no schema of that kind; a file that does not
 * parse fails with its path and line.
 */
export function readValuesSchemaFiles(openapiDir: string): ValuesSchemaFiles {
  if (!existsSync(openapiDir)) return {};
  const root = path.dirname(openapiDir);
  const configValues = readSchemaFile(path.join(openapiDir, 'config-values.yaml'), root);
  const values = readSchemaFile(path.join(openapiDir, 'values.yaml'), root);
  return { ...(configValues ? { configValues } : {}), ...(values ? { values } : {}) };
}

/** A schema file inside `root` (the module's or the global hooks' directory). */
function readSchemaFile(file: string, root: string): { file: string; schema: JsonValue } | undefined {
  const text = readTreeFile(file, root);
  if (text === undefined) return undefined;
  const schema = parseYamlDocument(text, file);
  return schema === undefined ? undefined : { file, schema };
}

/** Reads and compiles the schemas in `<dir>/openapi/`. */
function loadValuesSchemas(owner: ValuesOwner, dir: string): ValuesSchemas {
  return new ValuesSchemas(owner, readValuesSchemaFiles(path.join(dir, 'openapi')));
}

/**
 * Global schemas live in `$GLOBAL_HOOKS_DIR/openapi/` (as addon-operator reads them), module
 * schemas in `<module dir>/openapi/`. Without a global hooks dir, global values have no schema.
 */
export function loadTreeSchemas(tree: ModulesTree, globalHooksDir: string | undefined): TreeSchemas {
  return {
    global:
      globalHooksDir === undefined
        ? new ValuesSchemas(GLOBAL_OWNER)
        : loadValuesSchemas(GLOBAL_OWNER, globalHooksDir),
    modules: new Map(
      tree.modules.map((module) => [module.name, loadValuesSchemas(moduleOwner(module.name), module.dir)]),
    ),
  };
}
