import { moduleOwner } from '../../core/values.ts';
import { stringifyYamlStream } from '../../core/yaml.ts';
import { deliverModule, type DeliverResult } from '../../delivery/helm/deliver-module.ts';
import { renderTree } from '../render-tree.ts';
import type { OperatorContext } from './operator-context.ts';

/**
 * Renders the WHOLE tree of enabled modules (composition: a Component module changes the slices
 * of the modules before it), then delivers each enabled module's slice as its release. A slice
 * that did not change is a no-op by checksum, so a module whose slice another module changed is
 * the only other one upgraded (DESIGN.md cross-module composition).
 */
export async function deliverTree(ctx: OperatorContext): Promise<Map<string, DeliverResult>> {
  const enabled = ctx.state.enabledModules;
  const result = renderTree({
    tree: ctx.tree,
    values: { enabledModules: enabled, viewFor: (name) => ctx.store.valuesView(moduleOwner(name), enabled) },
    sharedComponentRoots: ctx.sharedComponentRoots,
    jq: ctx.jq,
  });
  for (const warning of result.warnings) ctx.logger.info(`warning: ${warning}`);
  const delivered = new Map<string, DeliverResult>();
  for (const module of enabled) {
    const resources = result.rendered.slices.get(module) ?? [];
    if (!ctx.state.preparedModules.has(module) || resources.length === 0) continue;
    const outcome = await deliverModule(
      {
        module,
        namespace: ctx.namespace,
        manifest: stringifyYamlStream(resources.map((resource) => resource.obj)),
      },
      { helm: ctx.helm, timeoutSeconds: ctx.helmTimeoutSeconds },
    );
    if (outcome.outcome !== 'unchanged')
      ctx.logger.info(`release ${outcome.outcome}`, { module, revision: outcome.revision });
    ctx.state.revisions.set(module, outcome.revision);
    delivered.set(module, outcome);
  }
  return delivered;
}
