import path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { repoRoot } from '../repo-root.ts';

export interface OperatorProcessOptions {
  readonly modulesDir: string;
  readonly namespace: string;
  readonly kubeconfigPath: string;
  readonly helmPath: string;
  /** Holds the debug socket and the hooks' temp files. */
  readonly workDir: string;
  readonly port: number;
  readonly forceKillAfterDelay: number;
  readonly extraEnv?: Readonly<Record<string, string>>;
  /**
   * Default true: run bin/kaddon.js, which runs the compiled dist/ when it is newer than src/ (as
   * in the image) and the sources through tsx otherwise; `npm test` builds dist/ first, and a start
   * of dist/ costs a third of the CPU time of one through tsx (docs/testing.md). False: always tsx.
   */
  readonly compiled?: boolean;
  /** Options for node itself, e.g. `--cpu-prof` (not allowed in NODE_OPTIONS). */
  readonly nodeArgs?: readonly string[];
}

/** `kaddon operator` as a child process on loopback, as the e2e test and the benchmark run it. */
export function startOperatorProcess(
  options: OperatorProcessOptions,
): ResultPromise<{ reject: false; all: true }> {
  const entry =
    options.compiled !== false
      ? [path.join(repoRoot, 'bin/kaddon.js'), 'operator']
      : ['--import', 'tsx', path.join(repoRoot, 'src/main.ts'), 'operator'];
  return execa(process.execPath, [...(options.nodeArgs ?? []), ...entry], {
    cwd: repoRoot,
    reject: false,
    all: true,
    forceKillAfterDelay: options.forceKillAfterDelay,
    env: {
      MODULES_DIR: options.modulesDir,
      ADDON_OPERATOR_NAMESPACE: options.namespace,
      KUBECONFIG: options.kubeconfigPath,
      KADDON_HELM_PATH: options.helmPath,
      DEBUG_UNIX_SOCKET: path.join(options.workDir, 'debug.socket'),
      ADDON_OPERATOR_TMP_DIR: path.join(options.workDir, 'tmp'),
      ADDON_OPERATOR_LISTEN_ADDRESS: '127.0.0.1',
      ADDON_OPERATOR_LISTEN_PORT: String(options.port),
      ...options.extraEnv,
    },
  });
}
