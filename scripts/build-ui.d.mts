/** Bundles the status page into `outdir` (scripts/build-ui.mjs). */
export function buildUi(outdir: string): Promise<void>;
