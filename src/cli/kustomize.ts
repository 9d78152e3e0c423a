import { parseArgs } from 'node:util';
import { stringifyYamlStream } from '../core/yaml/yaml.ts';
import { loadKustomization } from '../loader/kustomization-loader.ts';
import { buildKustomization } from '../pipeline/build-kustomization.ts';
import type { CliIo } from './cli-io.ts';
import { UsageError } from './usage-error.ts';

export const kustomizeUsage = `Usage: kaddon kustomize [DIR]

Builds a kustomization directory (default: the current directory) and prints the
resulting objects as a YAML stream, as \`kubectl kustomize DIR\` does.

Options:
  -o, --output yaml|json   output format (default yaml)
  --reorder legacy|none    output order when the kustomization sets no sortOptions:
                           by kind (legacy, the default) or as accumulated (none),
                           as \`kustomize build --reorder\`
  -h, --help               show this help`;

/** `kaddon kustomize DIR`: wiring only; the work is loadKustomization and buildKustomization. */
export function runKustomize(args: readonly string[], io: CliIo): void {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      output: { type: 'string', short: 'o', default: 'yaml' },
      reorder: { type: 'string', default: 'legacy' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout(`${kustomizeUsage}\n`);
    return;
  }
  if (positionals.length > 1) throw new UsageError('kustomize takes one directory', kustomizeUsage);
  if (values.output !== 'yaml' && values.output !== 'json') {
    throw new UsageError(`--output must be yaml or json, not '${values.output}'`, kustomizeUsage);
  }
  const reorder = values.reorder;
  if (reorder !== 'legacy' && reorder !== 'none') {
    throw new UsageError(`--reorder must be legacy or none, not '${reorder}'`, kustomizeUsage);
  }
  const { node, warnings } = loadKustomization(positionals[0] ?? '.');
  for (const warning of warnings) io.stderr(`${warning}\n`);
  const result = buildKustomization(node, { reorder });
  for (const warning of result.warnings) io.stderr(`# Warning: ${warning}\n`);
  const objects = result.resources.map((resource) => resource.obj);
  io.stdout(
    values.output === 'json'
      ? `${JSON.stringify(objects.length === 1 ? objects[0] : { apiVersion: 'v1', kind: 'List', items: objects }, null, 2)}\n`
      : stringifyYamlStream(objects),
  );
}
