import type { SettingReader } from './setting-reader.ts';
import { KaddonError } from '../core/errors.ts';
import { builtInRenderer, runnableRenderer } from '../delivery/helm/chart-renderer.ts';

/** KADDON_CHART_RENDERER names something that cannot be run. */
class ChartRendererSettingError extends KaddonError {
  readonly code = 'chart-renderer-setting';
  constructor(setting: string, value: string) {
    super(
      `setting '${setting}': '${value}' is neither 'native', 'helm' nor an executable file.`,
      "Unset it (the chart renderer built with kaddon), set 'helm' to render with `helm template`, or point it at a kaddon-chart-renderer binary.",
    );
  }
}

/** How chart modules are rendered: by this renderer binary, or (undefined) by `helm template`. */
export interface ChartRendererChoice {
  readonly binary: string | undefined;
  /** Said once where the default renderer is missing and `helm template` takes its place. */
  readonly notice: string | undefined;
}

/** What an unset KADDON_CHART_RENDERER means. */
const DEFAULT_CHART_RENDERER: string = 'native';

/**
 * KADDON_CHART_RENDERER (docs/delivery.md "Chart modules without a process per render"): unset or
 * `native`, the renderer built with kaddon (chart-renderer/bin/, next to the package's dist/) when
 * it is there, else `helm template` with a notice; `helm`, always `helm template`; a path, that
 * binary.
 */
export function resolveChartRenderer(read: SettingReader): ChartRendererChoice {
  const found = read.find('chartRenderer');
  const value = found?.value ?? DEFAULT_CHART_RENDERER;
  if (value === 'helm') return { binary: undefined, notice: undefined };
  if (found !== undefined && value !== 'native' && value !== '') {
    const binary = runnableRenderer(value);
    if (binary === undefined) throw new ChartRendererSettingError(found.name, value);
    return { binary, notice: undefined };
  }
  const builtIn = builtInRenderer();
  if (runnableRenderer(builtIn) !== undefined) return { binary: builtIn, notice: undefined };
  return {
    binary: undefined,
    notice:
      'the chart renderer is not built (Go was missing when kaddon was installed): chart modules are rendered by `helm template`, one process per render; `npm run build:chart-renderer` builds it (docs/delivery.md)',
  };
}
