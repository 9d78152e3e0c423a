import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The cases folder of a recorded kustomize corpus kept in the repository as test data:
 * `kustomize` (kaddon's own corpus), `kustomize-krusty` (cases from kustomize's own tests, outputs
 * recorded with kubectl), `kustomize-krusty-all` (all of kustomize's api/krusty tests, converted by
 * scripts/convert-krusty with the tests' own expectations) or `real-world` (public projects' trees,
 * one case folder per project).
 * test/conformance/corpus/<name>/README.md says how each was recorded.
 */
export function corpusCasesDir(
  name: 'kustomize' | 'kustomize-krusty' | 'kustomize-krusty-all' | 'real-world',
): string {
  return path.join(repoRoot, 'test/conformance/corpus', name, 'cases');
}
