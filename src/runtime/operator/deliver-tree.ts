import type { Resource } from '../../core/resource.ts';
import { moduleOwner } from '../../core/values.ts';
import { stringifyYamlStream } from '../../core/yaml.ts';
import { deliverModule, type DeliverResult } from '../../delivery/helm/deliver-module.ts';
import { renderTree, type RenderTreeResult } from '../render-tree.ts';
import type { OperatorContext } from './operator-context.ts';

/** The module whose run delivers the tree, for its render and helm metrics. */
export interface DeliverRun {
  readonly module: string;
  readonly activation: string;
}

/**
 * Renders the WHOLE tree of enabled modules (composition: a Component module changes the slices
 * of the modules before it), then delivers each enabled module's slice as its release. A slice
 * that did not change is a no-op by checksum, so a module whose slice another module changed is
 * the only other one upgraded (DESIGN.md cross-module composition).
 */
export async function deliverTree(ctx: OperatorContext, run: DeliverRun): Promise<Map<string, DeliverResult>> {
  const enabled = ctx.state.enabledModules;
  const startedAt = performance.now();
  const result = renderEnabled(ctx);
  ctx.metrics.moduleRender(run.module, (performance.now() - startedAt) / 1000);
  for (const module of enabled)
    ctx.metrics.unresolvedVarReferences(
      module,
      result.unresolved.filter((reference) => reference.module === module).length,
    );
  for (const warning of result.warnings) ctx.logger.info(`warning: ${warning}`);
  const delivered = new Map<string, DeliverResult>();
  for (const module of enabled) {
    const resources = result.rendered.slices.get(module) ?? [];
    if (!ctx.state.preparedModules.has(module) || resources.length === 0) continue;
    const helmStartedAt = performance.now();
    const outcome = await deliverModule(
      {
        module,
        namespace: ctx.namespace,
        manifest: stringifyYamlStream(resources.map((resource) => resource.obj)),
      },
      { helm: ctx.helm, timeoutSeconds: ctx.helmTimeoutSeconds },
    );
    const seconds = (performance.now() - helmStartedAt) / 1000;
    ctx.metrics.helmOperation({ module, activation: run.activation, operation: 'deliver' }, seconds);
    if (outcome.outcome !== 'unchanged')
      ctx.logger.info(`release ${outcome.outcome}`, { module, revision: outcome.revision });
    ctx.state.revisions.set(module, outcome.revision);
    ctx.state.delivered.set(module, resourceIds(resources));
    delivered.set(module, outcome);
  }
  return delivered;
}

/** The tree rendered with the current values of the enabled modules (also the debug `render`). */
export function renderEnabled(ctx: OperatorContext): RenderTreeResult {
  const enabled = ctx.state.enabledModules;
  return renderTree({
    tree: ctx.tree,
    values: { enabledModules: enabled, viewFor: (name) => ctx.store.valuesView(moduleOwner(name), enabled) },
    sharedComponentRoots: ctx.sharedComponentRoots,
    jq: ctx.jq,
  });
}

/** `ns/Kind/name`, sorted (reference §7.2 resource monitor). */
function resourceIds(resources: readonly Resource[]): string[] {
  return resources.map(({ id }) => `${id.namespace}/${id.kind}/${id.name}`).sort();
}
