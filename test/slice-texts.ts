import { stringifyYamlStream } from '../src/core/yaml/yaml.ts';
import type { RenderTreeResult } from '../src/runtime/build/render-tree.ts';

/** Each module's slice of a render as the YAML stream it prints, by module: what tests compare. */
export function sliceTexts(result: RenderTreeResult): Record<string, string> {
  return Object.fromEntries(
    [...result.rendered.slices].map(([module, resources]) => [
      module,
      stringifyYamlStream(resources.map((resource) => resource.obj)),
    ]),
  );
}
