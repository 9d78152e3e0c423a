import { displayPath } from '../core/display-path.ts';
import { KaddonError } from '../core/errors.ts';
import { findExecutable } from '../processes/find-executable.ts';
import { ChartRenderer } from '../delivery/helm/chart-renderer.ts';
import { resolveChartRenderer } from '../config/chart-renderer-setting.ts';
import { DEFAULT_HELM_TEMPLATE_TIMEOUT_MS, HelmClient } from '../delivery/helm/helm-client.ts';
import { resolveHelmBinary, type HelmBinarySetting } from '../config/operator-config.ts';
import type { SettingReader } from '../config/setting-reader.ts';
import type { ChartTemplater } from '../delivery/helm/render-chart-module.ts';
import type { ModuleDefinition } from '../loader/modules-tree.ts';
import type { BuildChartsOptions } from '../runtime/build/build-tree.ts';

/** An enabled chart module, and no helm to render it with. */
class HelmNotFoundError extends KaddonError {
  readonly code = 'helm-not-found';
  constructor(modules: readonly ModuleDefinition[], setting: HelmBinarySetting) {
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
 * How `kaddon build` renders chart modules: the chart renderer (KADDON_CHART_RENDERER, docs/delivery.md),
 * else the helm of --helm-path, HELM_BIN_PATH, KADDON_HELM_PATH, or `helm` on PATH, looked for only
 * when an enabled module is a chart.
 */
export function buildChartsOptions(
  read: SettingReader,
  namespace: string,
  tmpRoot: string,
  stopSignal?: AbortSignal,
): BuildChartsOptions {
  const setting = resolveHelmBinary(read);
  const templateTimeoutMs = read.durationMs('helmTemplateTimeout', DEFAULT_HELM_TEMPLATE_TIMEOUT_MS);
  const renderer = resolveChartRenderer(read);
  return {
    helm: (modules): ChartTemplater => {
      if (renderer.binary !== undefined)
        return new ChartRenderer({
          binary: renderer.binary,
          tmpRoot,
          templateTimeoutMs,
          ...(stopSignal === undefined ? {} : { stopSignal }),
        });
      if (renderer.notice !== undefined) process.stderr.write(`kaddon: note: ${renderer.notice}\n`);
      const helmPath = findExecutable(setting.command, process.env.PATH);
      if (helmPath === undefined) throw new HelmNotFoundError(modules, setting);
      return new HelmClient({
        helmPath,
        tmpRoot,
        templateTimeoutMs,
        ...(stopSignal === undefined ? {} : { stopSignal }),
      });
    },
    namespace,
    tmpRoot,
  };
}
