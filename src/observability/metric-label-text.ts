import { cleanText } from '../core/untrusted-text.ts';

/** The longest label value kaddon writes itself, in UTF-8 bytes. */
const MAX_LABEL_BYTES = 1024;

/**
 * A label value kaddon takes from names it does not choose (a hook's file name, a binding's or a
 * queue's name): control characters, bidirectional controls and lone surrogates replaced, cut to
 * 1 KiB, so that /metrics always parses (docs/observability.md "Metrics"). The exposition escapes
 * backslashes and quotes itself.
 */
export function metricLabelText(value: string): string {
  return cleanText(value, { maxBytes: MAX_LABEL_BYTES });
}
