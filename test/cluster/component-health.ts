import https from 'node:https';

/**
 * The flags kube-controller-manager and kube-scheduler share: the admin kubeconfig for their API
 * calls and for authenticating and authorizing callers of their own secure port, which listens on
 * loopback; no leader election (one replica).
 */
export function componentServerArgs(kubeconfig: string, port: number): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
    '--bind-address=127.0.0.1',
    `--secure-port=${port}`,
    '--leader-elect=false',
  ];
}

/**
 * Whether a control-plane component (kube-controller-manager, kube-scheduler) answers `ok` on its
 * secure port's /healthz. Its serving certificate is self-signed in memory, so it is not checked:
 * the probe only asks whether the process is up on loopback, and sends no credentials.
 */
export function isComponentHealthy(port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const request = https.get(
      { host: '127.0.0.1', port, path: '/healthz', rejectUnauthorized: false, timeout: 2000 },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => {
          resolve(response.statusCode === 200 && text === 'ok');
        });
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error('/healthz timed out')));
    request.on('error', reject);
  });
}
