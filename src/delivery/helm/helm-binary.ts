import { execa } from 'execa';
import { KaddonError } from '../../core/errors.ts';

/** The helm binary a setting names cannot be run: the operator does not start. */
class HelmBinaryError extends KaddonError {
  readonly code = 'helm-binary';
  constructor(setting: string, helmPath: string, problem: string) {
    super(
      `setting '${setting}': helm '${helmPath}' ${problem}.`,
      'Point HELM_BIN_PATH (or --helm-path) at a helm 3 or 4 binary, or put helm on PATH.',
    );
  }
}

/**
 * Runs `helm version --short` once at start, so a missing or broken helm is one clear error naming the
 * setting rather than a delivery retried for ever. Returns what helm printed, e.g. `v3.17.3+g…`.
 */
export async function checkHelmBinary(helmPath: string, setting: string): Promise<string> {
  const result = await execa(helmPath, ['version', '--short'], {
    reject: false,
    stdin: 'ignore',
    timeout: 30_000,
    env: { HELM_NO_PLUGINS: '1' },
  });
  if (result.failed) {
    const problem =
      result.exitCode === undefined
        ? `cannot be run (${result.code ?? result.shortMessage})`
        : `exited with code ${String(result.exitCode)}: ${result.stderr.trim().split('\n')[0] ?? ''}`;
    throw new HelmBinaryError(setting, helmPath, problem);
  }
  const version = result.stdout.trim();
  if (/^v[12]\./.test(version))
    throw new HelmBinaryError(setting, helmPath, `is ${version}; kaddon needs helm 3 or newer`);
  return version;
}
