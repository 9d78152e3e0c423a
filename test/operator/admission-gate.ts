import { readFile } from 'node:fs/promises';
import https from 'node:https';
import path from 'node:path';
import type { KubeClient } from '../../src/delivery/kube-client.ts';
import type { TestCluster } from '../cluster/test-cluster.ts';

/** A ConfigMap write the gate holds: the API server waits on its admission until `release()`. */
export interface HeldWrite {
  /** Resolves once the write has reached the gate and is being held. */
  readonly arrived: Promise<void>;
  readonly release: () => void;
}

/**
 * A validating admission webhook on loopback for the ConfigMaps of one namespace, which admits
 * every write at once except the next write of a ConfigMap it was told to hold: that one waits
 * (up to the webhook's 30 s) until the test releases it. It holds a delivery at a known point: the
 * release's pending revision is written, one of its objects is being applied.
 */
export interface AdmissionGate {
  holdNext(configMap: string): HeldWrite;
  /** Releases what is held, stops serving and removes the webhook configuration. */
  close(): Promise<void>;
}

const WEBHOOK = 'kaddon-test-admission-gate';

export async function startAdmissionGate(
  cluster: TestCluster,
  api: KubeClient,
  namespace: string,
): Promise<AdmissionGate> {
  const holds = new Map<string, { arrived: () => void; released: Promise<void> }>();
  const releases: (() => void)[] = [];
  let seen = 0;
  // The API server's own serving certificate is for 127.0.0.1, signed by the cluster's CA.
  const pki = path.join(cluster.dir, 'pki');
  const server = https.createServer(
    {
      cert: await readFile(path.join(pki, 'apiserver.crt')),
      key: await readFile(path.join(pki, 'apiserver.key')),
    },
    (request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
      });
      request.on('end', () => {
        seen++;
        const review = JSON.parse(body) as AdmissionReview;
        const name = review.request.name ?? review.request.object?.metadata?.name ?? '';
        const hold = holds.get(name);
        holds.delete(name);
        hold?.arrived();
        void (hold?.released ?? Promise.resolve()).then(() => {
          response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(admit(review)));
        });
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await api.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
    body: webhookConfiguration(namespace, port, cluster.caPem),
  });
  await waitServed(api, namespace, () => seen);
  return {
    holdNext: (configMap) => {
      let arrived = (): void => undefined;
      let release = (): void => undefined;
      const arrival = new Promise<void>((resolve) => {
        arrived = resolve;
      });
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      releases.push(release);
      holds.set(configMap, { arrived, released });
      return { arrived: arrival, release };
    },
    close: async () => {
      for (const release of releases) release();
      await api.request(
        'DELETE',
        `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${WEBHOOK}`,
      );
      server.closeAllConnections();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
}

interface AdmissionReview {
  readonly request: {
    readonly uid: string;
    readonly name?: string;
    readonly object?: { readonly metadata?: { readonly name?: string } };
  };
}

function admit(review: AdmissionReview): Record<string, unknown> {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: { uid: review.request.uid, allowed: true },
  };
}

function webhookConfiguration(namespace: string, port: number, caPem: string): Record<string, unknown> {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: WEBHOOK },
    webhooks: [
      {
        name: 'gate.kaddon.dev',
        clientConfig: {
          url: `https://127.0.0.1:${String(port)}/`,
          caBundle: Buffer.from(caPem).toString('base64'),
        },
        rules: [
          {
            apiGroups: [''],
            apiVersions: ['v1'],
            operations: ['CREATE', 'UPDATE'],
            resources: ['configmaps'],
            scope: 'Namespaced',
          },
        ],
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } },
        // A gate that is gone admits: only a held write waits.
        failurePolicy: 'Ignore',
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        timeoutSeconds: 30,
      },
    ],
  };
}

/** Writes a probe ConfigMap until a write reaches the gate: the API server has read the webhook. */
async function waitServed(api: KubeClient, namespace: string, seen: () => number): Promise<void> {
  const probe = `/api/v1/namespaces/${namespace}/configmaps`;
  for (let attempt = 0; seen() === 0; attempt++) {
    if (attempt > 100) throw new Error('the admission gate was never called');
    await api.request('PATCH', `${probe}/admission-gate-probe`, {
      query: { fieldManager: 'test' },
      body: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'admission-gate-probe' },
        data: { n: String(attempt) },
      },
      contentType: 'application/apply-patch+yaml',
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await api.request('DELETE', `${probe}/admission-gate-probe`);
}
