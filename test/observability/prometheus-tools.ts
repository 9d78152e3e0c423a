import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** A binary of Debian's prometheus package, or why the tests that need it are skipped. */
export interface PrometheusTool {
  readonly path: string | undefined;
  /** false when found; else the reason to skip (never when KADDON_REQUIRE_CLUSTER is set). */
  readonly skip: string | false;
}

/**
 * `promtool` or `prometheus` on PATH. Missing: the tests are skipped with the reason, unless
 * KADDON_REQUIRE_CLUSTER is set (CI, which installs the package in .ci/run): then this throws.
 */
export function findPrometheusTool(name: 'promtool' | 'prometheus'): PrometheusTool {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, name);
    if (dir !== '' && existsSync(candidate)) return { path: candidate, skip: false };
  }
  const reason = `${name} is not on PATH: install Debian's prometheus package (apt-get install -y prometheus), as .ci/run does`;
  if (process.env.KADDON_REQUIRE_CLUSTER) throw new Error(reason);
  return { path: undefined, skip: reason };
}
