/**
 * The operator variables a hook inherits with KADDON_HOOK_ENV=minimal. By default hooks get the
 * operator's whole environment, as addon-operator gives it (real hooks read variables set on the
 * Deployment); `minimal` keeps credentials given to the operator through its environment away from
 * every hook and passes only what common hooks need to run unchanged: a search path and locale for
 * bash, jq and python; TMPDIR for mktemp on read-only root file systems; the in-cluster service
 * variables and KUBECONFIG, without which `kubectl` in a hook cannot find the API server.
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
const DEFAULT_HOOK_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

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

/**
 * The environment hooks run with (docs/hooks.md "Files and variables"): the operator's own, or with
 * KADDON_HOOK_ENV=minimal only HOOK_INHERITED_ENV. The contract variables are added per run.
 */
export function hookEnvironment(
  operatorEnv: Readonly<Record<string, string | undefined>>,
  mode: 'operator' | 'minimal',
): Record<string, string> {
  if (mode === 'minimal') return selectHookEnv(operatorEnv);
  const env: Record<string, string> = { PATH: DEFAULT_HOOK_PATH };
  for (const [name, value] of Object.entries(operatorEnv)) if (value !== undefined) env[name] = value;
  return env;
}
