import { KaddonError } from '../../core/errors.ts';
import { moduleValuesKey } from '../../core/module-name.ts';
import type { HelmError } from './helm-error.ts';

/** How many lines of helm's stderr the message quotes: the error comes first, then advice. */
const QUOTED_STDERR_LINES = 3;

/**
 * A chart module that `helm template` could not render. helm names a template as
 * `<chart name>/templates/…`; the message names it inside the module directory instead, so the
 * path can be opened as written.
 */
export class ChartRenderError extends KaddonError {
  readonly code = 'chart-render-failed';
  readonly module: string;
  readonly stderr: string;

  constructor(module: string, displayDir: string, chartName: string | undefined, cause: HelmError) {
    const stderr =
      chartName === undefined ? cause.stderr : withModulePaths(cause.stderr, chartName, displayDir);
    super(
      `module '${module}': ${displayDir}: helm template failed: ${quote(stderr) || cause.message}.`,
      `Fix the template helm names; .Values holds the module's values under '${moduleValuesKey(module)}' and the global values under 'global'.`,
      { cause },
    );
    this.module = module;
    this.stderr = stderr;
  }
}

function withModulePaths(text: string, chartName: string, displayDir: string): string {
  const escaped = chartName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return text.replace(new RegExp(`(^|[\\s("'])${escaped}/`, 'g'), `$1${displayDir}/`);
}

function quote(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('Use --debug'));
  return lines.slice(0, QUOTED_STDERR_LINES).join(' ');
}
