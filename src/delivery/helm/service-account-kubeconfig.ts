import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';

/**
 * A kubeconfig for helm that names the in-cluster service account's files (docs/lifecycle.md "Helm
 * delivery"): helm then reads the token file itself, again as it rotates, and the operator and helm
 * use one identity wherever the files are (KADDON_IN_CLUSTER_ROOT in tests). Written into the
 * operator's temp dir, readable by the operator's user only; it holds paths, no secret.
 */
export function writeServiceAccountKubeconfig(
  dir: string,
  server: string,
  account: { readonly tokenFile: string; readonly caFile: string },
): string {
  const file = path.join(dir, 'helm-kubeconfig.yaml');
  const kubeconfig = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'in-cluster', cluster: { server, 'certificate-authority': account.caFile } }],
    users: [{ name: 'service-account', user: { tokenFile: account.tokenFile } }],
    contexts: [{ name: 'in-cluster', context: { cluster: 'in-cluster', user: 'service-account' } }],
    'current-context': 'in-cluster',
  };
  writeFileSync(file, stringify(kubeconfig), { mode: 0o600 });
  return file;
}
