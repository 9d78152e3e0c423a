import { setFlagsFromString } from 'node:v8';

/**
 * V8's heap sized for a process that works in bursts (a converge, an edit) and then waits for hours
 * (docs/performance.md "Idle memory"). By default V8 sizes both generations for throughput: the
 * young one doubles whenever a scavenge finds much alive, up to two 16 MiB semi-spaces, and never
 * gives that back while anything allocates at all; the old one may grow to up to four times what
 * was alive after the last full collection before it is collected again, so a burst leaves the
 * idle operator holding its garbage, spread over pages that stay resident, until V8's memory
 * reducer runs (at the earliest 8 s later, and only if nothing allocates meanwhile).
 *
 * - `--semi-space-growth-factor=1`: the young generation stays at the two 1 MiB semi-spaces it
 *   starts with (the semi-spaces' maximum is fixed when the heap is made; the factor is read on each
 *   growth). Young objects that outlive two scavenges are promoted sooner; the old generation's
 *   limit below collects them.
 * - `--heap-growing-percent`: the old generation is collected once it is that much larger than what
 *   was alive after the last full collection.
 *
 * Measured with `npm run bench:operator -- --compiled` (native engine, idle RSS 5 s after the first
 * convergence): 100 modules 155 → 116 MiB, 1,000 modules 299 → 212 MiB; the operator's CPU for a
 * converge of 1,000 modules stayed within the spread of runs on the shared machine.
 */
export const OPERATOR_HEAP_FLAGS: readonly string[] = [
  '--semi-space-growth-factor=1',
  '--heap-growing-percent=50',
];

/**
 * Applies OPERATOR_HEAP_FLAGS to this process: called when `kaddon operator` starts, before it loads
 * anything (each later growth of either generation obeys them). Other commands run once and exit,
 * and keep V8's defaults.
 */
export function sizeHeapForOperator(): void {
  for (const flag of OPERATOR_HEAP_FLAGS) setFlagsFromString(flag);
}
