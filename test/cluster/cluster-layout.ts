import { readdirSync, rmSync, rmdirSync } from 'node:fs';
import path from 'node:path';

/** Where one cluster keeps its files; everything the harness writes is listed here. */
export interface ClusterLayout {
  readonly dir: string;
  readonly pki: string;
  readonly etcdData: string;
  readonly etcdLog: string;
  readonly apiServerLog: string;
  /** --cert-dir: unused while certificates are given, but kept out of /var/run/kubernetes. */
  readonly apiServerCertDir: string;
  readonly kubeconfig: string;
  readonly controllerManagerLog: string;
  readonly schedulerLog: string;
  readonly kwokLog: string;
  /** KWOK's Stage objects (kwok-stages.ts). */
  readonly kwokConfig: string;
  /** The recorded pids and binaries, so a later `stop` can end a detached cluster. */
  readonly state: string;
}

export function clusterLayout(dir: string): ClusterLayout {
  const file = (name: string) => path.join(dir, name);
  return {
    dir,
    pki: file('pki'),
    etcdData: file('etcd-data'),
    etcdLog: file('etcd.log'),
    apiServerLog: file('kube-apiserver.log'),
    apiServerCertDir: file('apiserver-certs'),
    kubeconfig: file('kubeconfig'),
    controllerManagerLog: file('kube-controller-manager.log'),
    schedulerLog: file('kube-scheduler.log'),
    kwokLog: file('kwok.log'),
    kwokConfig: file('kwok.yaml'),
    state: file('cluster.json'),
  };
}

/**
 * Removes what the harness wrote, then the directory itself once empty; anything else a user kept
 * there stays. Synchronous so exit handlers can call it.
 */
export function removeLayout(layout: ClusterLayout): void {
  const { dir, ...files } = layout;
  // Retries: a just-killed etcd may still be closing files in its data dir.
  for (const file of Object.values(files))
    rmSync(file, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  try {
    if (readdirSync(dir).length === 0) rmdirSync(dir);
  } catch {
    // Already gone.
  }
}
