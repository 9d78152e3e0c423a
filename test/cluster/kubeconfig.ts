import { writeFile } from 'node:fs/promises';
import { stringify } from 'yaml';
import type { ApiCredentials } from './api-request.ts';

/** A self-contained kubeconfig (certificates inline) for the admin user, context `kaddon-test`. */
export async function writeKubeconfig(file: string, credentials: ApiCredentials): Promise<void> {
  const base64 = (pem: string) => Buffer.from(pem).toString('base64');
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'kaddon-test',
        cluster: { server: credentials.server, 'certificate-authority-data': base64(credentials.caPem) },
      },
    ],
    users: [
      {
        name: 'kaddon-admin',
        user: {
          'client-certificate-data': base64(credentials.clientCertPem),
          'client-key-data': base64(credentials.clientKeyPem),
        },
      },
    ],
    contexts: [{ name: 'kaddon-test', context: { cluster: 'kaddon-test', user: 'kaddon-admin' } }],
    'current-context': 'kaddon-test',
  };
  await writeFile(file, stringify(config), { mode: 0o600 });
}
