import https from 'node:https';

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
