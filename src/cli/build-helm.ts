import { displayPath } from '../core/display-path.ts';
import { KaddonError } from '../core/errors.ts';
import { findSetting } from '../config/setting-names.ts';
import { findExecutable } from '../delivery/helm/find-executable.ts';
import { DEFAULT_HELM_TEMPLATE_TIMEOUT_MS, HelmClient } from '../delivery/helm/helm-client.ts';
import { positiveDurationMs } from '../config/operator-config.ts';
import type { ChartTemplater } from '../delivery/helm/render-chart-module.ts';
import type { ModuleDefinition } from '../loader/modules-tree.ts';
import type { BuildChartsOptions } from '../runtime/build-tree.ts';

/** Where the helm binary was asked for, for the message when it is not there. */
interface HelmSetting {
  readonly command: string;
  /** The flag or variable that named it, or PATH. */
  readonly from: string;
}

/** An enabled chart module, and no helm to render it with. */
export class HelmNotFoundError extends KaddonError {
  readonly code = 'helm-not-found';
  constructor(modules: readonly ModuleDefinition[], setting: HelmSetting) {
    const [first, ...others] = modules;
    const where = setting.command.includes('/')
      ? `'${setting.command}' (${setting.from}) is not an executable file`
      : `'${setting.command}'${setting.from === 'PATH' ? '' : ` (${setting.from})`} is not on PATH`;
    const also = others.length > 0 ? ` (so do ${others.map((module) => `'${module.name}'`).join(', ')})` : '';
    super(
      `module '${first?.name ?? ''}': ${displayPath(first?.dir ?? '.', process.cwd())} is a Helm chart module and rendering it needs helm${also}, but ${where}.`,
      'Install helm 3 or 4 (https://helm.sh/docs/intro/install/), or point --helm-path or HELM_BIN_PATH at the helm binary.',
    );
  }
}

/**
 * How `kaddon build` renders chart modules: the helm of --helm-path, HELM_BIN_PATH, KADDON_HELM_PATH, or `helm`
 * on PATH, looked for only when an enabled module is a chart.
 */
export function buildChartsOptions(
  helmPathFlag: string | undefined,
  namespaceFlag: string | undefined,
  env: NodeJS.ProcessEnv,
  tmpRoot: string,
  stopSignal?: AbortSignal,
): BuildChartsOptions {
  const named = findSetting(env, 'helmPath');
  const setting: HelmSetting =
    helmPathFlag !== undefined
      ? { command: helmPathFlag, from: '--helm-path' }
      : named
        ? { command: named.value, from: named.name }
        : { command: 'helm', from: 'PATH' };
  return {
    helm: (modules): ChartTemplater => {
      const helmPath = findExecutable(setting.command, env.PATH);
      if (helmPath === undefined) throw new HelmNotFoundError(modules, setting);
      return new HelmClient({
        helmPath,
        tmpRoot,
        templateTimeoutMs: positiveDurationMs(
          findSetting(env, 'helmTemplateTimeout'),
          DEFAULT_HELM_TEMPLATE_TIMEOUT_MS,
        ),
        ...(stopSignal === undefined ? {} : { stopSignal }),
      });
    },
    namespace: namespaceFlag ?? (env.ADDON_OPERATOR_NAMESPACE || 'default'),
    tmpRoot,
  };
}
