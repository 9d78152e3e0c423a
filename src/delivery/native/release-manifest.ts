import { isJsonObject, scalarText, type JsonObject } from '../../core/json.ts';
import { parseYamlDocuments } from '../../core/yaml/yaml.ts';
import { INSTALL_ORDER, sortByKind } from './helm-kind-order.ts';

/** A release's objects and the manifest text helm would store for them. */
export interface ReleaseManifest {
  /** As `helm get manifest` prints it, less the newline helm adds on printing. */
  readonly text: string;
  /** The objects in helm's install order. */
  readonly objects: readonly JsonObject[];
}

/** helm's releaseutil separator: `---` at the start of a line, with the blanks around it. */
const DOCUMENT_SEPARATOR = /(?:^|\s*\n)---\s*/;

/**
 * What helm makes of a template's output (helm's SplitManifests and SortManifests): the text cut
 * into trimmed documents, sorted by kind into helm's install order, each printed after `---` and a
 * `# Source:` line naming the template (docs/delivery.md "Release records").
 */
export function releaseManifest(templateOutput: string, source: string, where: string): ReleaseManifest {
  const documents = templateOutput
    .trim()
    .split(DOCUMENT_SEPARATOR)
    .map((document) => document.trim())
    .filter((document) => document !== '')
    .map((document) => ({ document, object: parseObject(document, where) }));
  const sorted = sortByKind(documents, ({ object }) => scalarText(object.kind), INSTALL_ORDER);
  return {
    text: sorted.map(({ document }) => `---\n# Source: ${source}\n${document}\n`).join(''),
    objects: sorted.map(({ object }) => object),
  };
}

/** The objects of a stored manifest, in the order it holds them. */
export function manifestObjects(manifest: string, where: string): JsonObject[] {
  return parseYamlDocuments(manifest, where)
    .map((document) => document.value)
    .filter(isJsonObject);
}

/** Whether helm would run the object as a hook (a `helm.sh/hook` annotation) rather than install it. */
export function isHelmHook(object: JsonObject): boolean {
  const metadata = isJsonObject(object.metadata) ? object.metadata : {};
  const annotations = isJsonObject(metadata.annotations) ? metadata.annotations : {};
  return annotations['helm.sh/hook'] !== undefined;
}

/** `helm.sh/resource-policy: keep`: helm leaves the object in place when the release drops it. */
export function isKept(object: JsonObject | undefined): boolean {
  const metadata = isJsonObject(object?.metadata) ? object.metadata : {};
  const annotations = isJsonObject(metadata.annotations) ? metadata.annotations : {};
  return annotations['helm.sh/resource-policy'] === 'keep';
}

function parseObject(document: string, where: string): JsonObject {
  const [parsed] = parseYamlDocuments(document, where);
  return isJsonObject(parsed?.value) ? parsed.value : {};
}
