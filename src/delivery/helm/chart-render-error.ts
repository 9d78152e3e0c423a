import { KaddonError } from '../../core/errors.ts';
import { moduleValuesKey } from '../../core/module-name.ts';
import { cutLine, formatSize, type HelmError } from './helm-error.ts';

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
    const timedOut = cause.ended === 'timeout';
    const quoted = quote(stderr);
    super(
      timedOut
        ? `module '${module}': ${displayDir}: helm template did not finish within ${cause.limit ?? 'its time limit'}${quoted ? `: ${quoted}` : ''}.`
        : `module '${module}': ${displayDir}: helm template failed: ${quoted || cause.message.replace(/\.$/, '')}.`,
      timedOut
        ? 'A template that includes itself without end renders for ever: fix the recursion, or raise KADDON_HELM_TEMPLATE_TIMEOUT for a chart that is merely slow.'
        : `Fix the template helm names; .Values holds the module's values under '${moduleValuesKey(module)}' and the global values under 'global'.`,
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

/**
 * The first lines of helm's stderr, each cut short: helm names the template and its line first
 * (`template: <chart>/templates/x.yaml:3:4: executing …`), and an `include` that recurses repeats
 * that chain for 100 KB. Cut text says how much there was.
 */
function quote(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('Use --debug'));
  const quoted = lines.slice(0, QUOTED_STDERR_LINES).map((line) => cutLine(line));
  const more = lines.length - quoted.length;
  const rest = more > 0 ? ` (${String(more)} more lines, ${formatSize(stderr.length)} in all)` : '';
  return `${quoted.join(' ')}${rest}`;
}
