import { errorMessage } from '../../core/errors.ts';
import type { AnyTask } from './task.ts';

/**
 * How logs and the queue dump name a task (docs/lifecycle.md "Tasks and queues"):
 * `<TaskType>:<queue>:<what it is about>[:failures N[:<last error>]]`, e.g.
 * `ModuleRun:main:sysctl-tuner:doStartup:OperatorStartup`.
 */
export function describeTask(task: AnyTask, failures = 0, lastError?: unknown): string {
  const parts: string[] = [task.type, task.queue, ...aboutTask(task)];
  if (failures > 0) parts.push(`failures ${failures}`);
  if (failures > 0 && lastError !== undefined) parts.push(errorMessage(lastError));
  return parts.join(':');
}

function aboutTask(task: AnyTask): string[] {
  const { module, hook, event } = task.metadata;
  switch (task.type) {
    case 'GlobalHookRun':
    case 'ModuleHookRun':
      return present([task.metadata.bindingType, hookName(module, hook), bindingsOf(task), event]);
    case 'ModuleRun':
      return present([module, task.payload.doModuleStartup ? 'doStartup' : undefined, event]);
    case 'ConvergeModules':
      return present([task.payload.event, task.payload.phase]);
    case 'ModulePurge':
      return present([task.payload.release, event]);
    default:
      return present([module, hook, event]);
  }
}

/** `<sorted binding names>[ in N contexts]`, as addon-operator's hook task metadata reads. */
function bindingsOf(task: AnyTask & { type: 'GlobalHookRun' | 'ModuleHookRun' }): string | undefined {
  const names = [...new Set(task.metadata.bindings ?? [])].sort();
  if (names.length === 0) return undefined;
  const contexts = task.payload.bindingContexts.length;
  return contexts > 1 ? `${names.join(',')} in ${contexts} contexts` : names.join(',');
}

function hookName(module: string | undefined, hook: string | undefined): string | undefined {
  if (hook === undefined) return undefined;
  // The operator's tasks carry hook ids, `<module>/<hook>` or `global/<hook>`.
  if (module !== undefined && hook.startsWith(`${module}/`)) return hook;
  if (module === undefined && hook.startsWith('global/')) return hook.slice('global/'.length);
  return module === undefined ? hook : `${module}/${hook}`;
}

function present(parts: readonly (string | undefined)[]): string[] {
  return parts.filter((part): part is string => part !== undefined && part !== '');
}
