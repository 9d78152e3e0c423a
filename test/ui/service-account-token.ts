/** Posts `body` to the API collection `collection` and answers the created object. */
type Post = (collection: string, body: Record<string, unknown>) => Promise<Record<string, unknown>>;

/**
 * Creates the ServiceAccount `name` in `namespace` and mints it an hour's token (TokenRequest): a
 * person signing in to the status page with what `kubectl create token` gives.
 */
export async function serviceAccountToken(post: Post, namespace: string, name: string): Promise<string> {
  await post(`/api/v1/namespaces/${namespace}/serviceaccounts`, {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name },
  });
  const minted = await post(`/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    spec: { expirationSeconds: 3600 },
  });
  return (minted.status as { token: string }).token;
}
