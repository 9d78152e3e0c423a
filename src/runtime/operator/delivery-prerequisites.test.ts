import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isJsonObject, type JsonObject } from '../../core/json.ts';
import { Resource } from '../../core/resource.ts';
import { prerequisites } from './delivery-prerequisites.ts';

/** The rule of docs/lifecycle.md "Overlapping delivery" as plainly as it can be said: every slice scanned. */
function reference(
  module: string,
  resources: readonly Resource[],
  slices: ReadonlyMap<string, readonly Resource[]>,
  isPending: (module: string) => boolean,
): string[] {
  const namespaces = new Set(resources.map((resource) => resource.id.namespace).filter(Boolean));
  const kinds = new Set(resources.map((resource) => `${resource.id.group}/${resource.id.kind}`));
  const needed = (resource: Resource): boolean => {
    if (resource.id.kind === 'Namespace' && resource.id.group === '') return namespaces.has(resource.id.name);
    if (resource.id.kind !== 'CustomResourceDefinition') return false;
    const spec = isJsonObject(resource.obj.spec) ? resource.obj.spec : {};
    const names = isJsonObject(spec.names) ? spec.names : {};
    return (
      typeof spec.group === 'string' &&
      typeof names.kind === 'string' &&
      kinds.has(`${spec.group}/${names.kind}`)
    );
  };
  return [...slices]
    .filter(([other, theirs]) => other !== module && isPending(other) && theirs.some(needed))
    .map(([other]) => other);
}

function generatedSlices(seed: number): Map<string, Resource[]> {
  let state = seed;
  const next = (limit: number): number => (state = (state * 1103515245 + 12345) % 2147483648) % limit;
  const slices = new Map<string, Resource[]>();
  for (let index = 0; index < 30; index++) {
    const objects: JsonObject[] = [];
    for (let count = next(5); count > 0; count--) {
      const namespace = `ns-${String(next(6))}`;
      const choice = next(4);
      if (choice === 0) objects.push({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
      else if (choice === 1)
        objects.push({
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name: `widgets${String(next(3))}.example.com` },
          spec: { group: 'example.com', names: { kind: `Widget${String(next(3))}` } },
        });
      else if (choice === 2)
        objects.push({
          apiVersion: 'example.com/v1',
          kind: `Widget${String(next(3))}`,
          metadata: { name: 'w', namespace },
        });
      else
        objects.push({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `c${String(index)}`, namespace },
        });
    }
    slices.set(
      `m${String(index)}`,
      objects.map((object) => new Resource(object, 'generated.yaml')),
    );
  }
  return slices;
}

describe('the modules a delivery waits for (docs/lifecycle.md "Overlapping delivery")', () => {
  it('are what scanning every slice finds, in module order, for generated renders', () => {
    for (let seed = 1; seed <= 50; seed++) {
      const slices = generatedSlices(seed);
      const pending = (module: string): boolean => Number(module.slice(1)) % 3 !== seed % 3;
      for (const [module, resources] of slices)
        assert.deepEqual(
          prerequisites(module, resources, slices, pending),
          reference(module, resources, slices, pending),
          `seed ${String(seed)}, ${module}`,
        );
    }
  });
});
