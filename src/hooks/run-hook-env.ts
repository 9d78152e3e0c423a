/**
 * The operator variables a hook inherits. addon-operator hands hooks its whole environment; kaddon
 * passes only these, so that credentials given to the operator through its environment do not reach
 * every hook. They are what common hooks need to run unchanged: a search path and locale for bash,
 * jq and python; TMPDIR for mktemp on read-only root file systems; the in-cluster service variables
 * and KUBECONFIG, without which `kubectl` in a hook cannot find the API server.
 * Deployments that need more list them (the caller passes `extraNames`).
 */
export const HOOK_INHERITED_ENV = [
  'PATH',
  'HOME',
  'LANG',
  'LC_ALL',
  'TZ',
  'TMPDIR',
  'KUBERNETES_SERVICE_HOST',
  'KUBERNETES_SERVICE_PORT',
  'KUBECONFIG',
] as const;

/** The search path when the operator has none, as in Debian's default login environment. */
export const DEFAULT_HOOK_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The part of the operator's environment that hooks get: HOOK_INHERITED_ENV plus `extraNames`. */
export function selectHookEnv(
  operatorEnv: Readonly<Record<string, string | undefined>>,
  extraNames: readonly string[] = [],
): Record<string, string> {
  const env: Record<string, string> = { PATH: DEFAULT_HOOK_PATH };
  for (const name of [...HOOK_INHERITED_ENV, ...extraNames]) {
    const value = operatorEnv[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}
