import type { KubeClient } from '../../src/delivery/kube-client.ts';
import { isJsonObject, type JsonObject } from '../../src/core/json.ts';
import { eventually, type E2eOperator } from '../operator/operator-e2e-kit.ts';

/** A Module's Ready condition (docs/module-status.md "Conditions"). */
export interface ModuleReady {
  readonly status: string;
  readonly reason: string;
  readonly message: string;
}

const MODULES = '/apis/kaddon.dev/v1alpha1/modules';

/** The Ready condition of every Module object, by module name; `kubectl get modules` shows the same. */
export async function readModules(api: KubeClient): Promise<Map<string, ModuleReady>> {
  const list = await api.request('GET', MODULES);
  const modules = new Map<string, ModuleReady>();
  for (const item of Array.isArray(list.items) ? list.items.filter(isJsonObject) : []) {
    const name = isJsonObject(item.metadata) ? item.metadata.name : undefined;
    if (typeof name === 'string') modules.set(name, readyOf(item));
  }
  return modules;
}

function readyOf(module: JsonObject): ModuleReady {
  const status = isJsonObject(module.status) ? module.status : {};
  const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isJsonObject) : [];
  const ready = conditions.find((condition) => condition.type === 'Ready') ?? {};
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  return { status: text(ready.status), reason: text(ready.reason), message: text(ready.message) };
}

/** The modules of `names` whose Module is not Ready=True, each with its reason and message. */
export function notReady(modules: ReadonlyMap<string, ModuleReady>, names: readonly string[]): string[] {
  return names.flatMap((name) => {
    const ready = modules.get(name);
    if (ready?.status === 'True') return [];
    return [ready ? `${name}: Ready=${ready.status} ${ready.reason} ${ready.message}` : `${name}: no Module`];
  });
}

/** Waits until every module of `names` is Ready=True; the failure names those that are not, and why. */
export async function waitModulesReady(
  operator: E2eOperator,
  api: KubeClient,
  names: readonly string[],
  deadlineMs: number,
): Promise<void> {
  let last: string[] = [];
  try {
    await eventually(
      operator,
      'every module Ready',
      async () => {
        last = notReady(await readModules(api), names);
        return last.length === 0 ? true : undefined;
      },
      deadlineMs,
    );
  } catch (error: unknown) {
    throw new Error(`not Ready: ${last.join('; ')}`, { cause: error });
  }
}
