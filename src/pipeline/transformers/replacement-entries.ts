import { KustomizeError } from '../../core/errors.ts';
import { isJsonObject } from '../../core/json.ts';
import type { KustomizationNode, Replacement, ReplacementEntry } from '../../core/kustomization.ts';
import type { Resource } from '../../core/resource.ts';
import { parseYamlDocuments } from '../../core/yaml/yaml.ts';
import { applyReplacements } from './replacements.ts';

/** `replacements:` entries are inline, or `path:` files holding one replacement or a list of them. */
export function applyReplacementEntries(
  resources: readonly Resource[],
  entries: readonly ReplacementEntry[],
  node: KustomizationNode,
): void {
  for (const entry of entries) {
    if (entry.path === undefined) {
      applyReplacements(resources, [entry], node.file);
      continue;
    }
    const bytes = node.files.get(entry.path);
    if (!bytes) throw new Error(`loader did not read replacements file '${entry.path}' of ${node.file}`);
    const file = node.filePaths.get(entry.path) ?? entry.path;
    const replacements: Replacement[] = [];
    for (const doc of parseYamlDocuments(Buffer.from(bytes).toString('utf8'), file)) {
      const items = Array.isArray(doc.value) ? doc.value : [doc.value];
      for (const item of items) {
        if (!isJsonObject(item)) {
          throw new KustomizeError(
            'replacement-invalid',
            file,
            'a replacement must be a map with source and targets',
            'Write each replacement as {source: …, targets: […]}.',
          );
        }
        replacements.push(item);
      }
    }
    applyReplacements(resources, replacements, file);
  }
}
