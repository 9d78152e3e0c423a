import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { isJsonObject } from '../../src/core/json.ts';
import { KubeClient } from '../../src/delivery/kube-client.ts';
import {
  connectionFromKubeconfig,
  KubeConfigError,
  loadKubeConnection,
} from '../../src/delivery/kube-connection.ts';
import { startTestCluster, type TestCluster } from '../cluster/test-cluster.ts';

const NAMESPACE = 'kaddon-connection';
let cluster: TestCluster;
let admin: KubeClient;
let dir: string;
let token: string;

const base64 = (text: string): string => Buffer.from(text).toString('base64');

/** Who the API server says the client is (SelfSubjectReview, allowed to every authenticated user). */
async function whoAmI(client: KubeClient): Promise<string> {
  const review = await client.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
  });
  const status = isJsonObject(review.status) ? review.status : {};
  const user = isJsonObject(status.userInfo) ? status.userInfo : {};
  return typeof user.username === 'string' ? user.username : '';
}

async function kubeconfigFile(name: string, config: Record<string, unknown>): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, stringify({ apiVersion: 'v1', kind: 'Config', ...config }), { mode: 0o600 });
  return file;
}

const realCluster = (): Record<string, unknown> => ({
  name: 'real',
  cluster: { server: cluster.server, 'certificate-authority-data': base64(cluster.caPem) },
});
const tokenUser = (user: Record<string, unknown>): Record<string, unknown> => ({ name: 'robot', user });

before(async () => {
  cluster = await startTestCluster();
  admin = new KubeClient(connectionFromKubeconfig(cluster.kubeconfigPath));
  dir = await mkdtemp(path.join(tmpdir(), 'kaddon-connection-'));
  await admin.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } },
  });
  await admin.request('POST', `/api/v1/namespaces/${NAMESPACE}/serviceaccounts`, {
    body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } },
  });
  const minted = await admin.request('POST', `/api/v1/namespaces/${NAMESPACE}/serviceaccounts/robot/token`, {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
  });
  const status = isJsonObject(minted.status) ? minted.status : {};
  token = typeof status.token === 'string' ? status.token : '';
});
after(async () => {
  await cluster.stop();
  await rm(dir, { recursive: true, force: true });
});

const ROBOT = `system:serviceaccount:${NAMESPACE}:robot`;

describe('the connection, as client-go loads it (through @kubernetes/client-node)', () => {
  it('uses KUBE_CONTEXT over the current context', async () => {
    const file = await kubeconfigFile('contexts.yaml', {
      clusters: [realCluster(), { name: 'nowhere', cluster: { server: 'https://127.0.0.1:1' } }],
      users: [tokenUser({ token })],
      contexts: [
        { name: 'broken', context: { cluster: 'nowhere', user: 'robot' } },
        { name: 'working', context: { cluster: 'real', user: 'robot' } },
      ],
      'current-context': 'broken',
    });
    const client = new KubeClient(loadKubeConnection({}, { kubeconfig: file, context: 'working' }));
    assert.equal(await whoAmI(client), ROBOT);
    assert.throws(
      () => loadKubeConnection({}, { kubeconfig: file, context: 'missing' }),
      (error: unknown) =>
        error instanceof KubeConfigError &&
        /no context named 'missing'.*Use one of: broken, working/.test(error.describe()),
    );
  });

  it('merges the files KUBECONFIG lists, the first one winning, and KUBE_SERVER replaces the server', async () => {
    const first = await kubeconfigFile('first.yaml', {
      clusters: [
        {
          name: 'real',
          cluster: { server: 'https://127.0.0.1:1', 'certificate-authority-data': base64(cluster.caPem) },
        },
      ],
      contexts: [{ name: 'robot', context: { cluster: 'real', user: 'robot' } }],
      'current-context': 'robot',
    });
    const second = await kubeconfigFile('second.yaml', {
      clusters: [realCluster()],
      users: [tokenUser({ token })],
      'current-context': 'other',
    });
    const connection = loadKubeConnection({ KUBECONFIG: `${first}:${second}` }, { server: cluster.server });
    assert.equal(connection.server, cluster.server);
    assert.equal(await whoAmI(new KubeClient(connection)), ROBOT);
  });

  it('reads a token file and runs an exec credential plugin when a request needs them', async () => {
    const tokenFile = path.join(dir, 'token');
    await writeFile(tokenFile, token);
    const viaFile = await kubeconfigFile('token-file.yaml', {
      clusters: [realCluster()],
      users: [tokenUser({ tokenFile })],
      contexts: [{ name: 'c', context: { cluster: 'real', user: 'robot' } }],
      'current-context': 'c',
    });
    assert.equal(await whoAmI(new KubeClient(connectionFromKubeconfig(viaFile))), ROBOT);

    const plugin = path.join(dir, 'credential.mjs');
    const credential = {
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      status: { token },
    };
    await writeFile(
      plugin,
      `#!/usr/bin/env node\nconsole.log(${JSON.stringify(JSON.stringify(credential))});\n`,
    );
    await chmod(plugin, 0o755);
    const viaExec = await kubeconfigFile('exec.yaml', {
      clusters: [realCluster()],
      users: [
        tokenUser({
          exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin, interactiveMode: 'Never' },
        }),
      ],
      contexts: [{ name: 'c', context: { cluster: 'real', user: 'robot' } }],
      'current-context': 'c',
    });
    assert.equal(await whoAmI(new KubeClient(connectionFromKubeconfig(viaExec))), ROBOT);
  });

  it('runs in-cluster from the service account files when there is no kubeconfig', async () => {
    const root = path.join(dir, 'pod');
    const accountDir = path.join(root, 'var/run/secrets/kubernetes.io/serviceaccount');
    await mkdir(accountDir, { recursive: true });
    await writeFile(path.join(accountDir, 'token'), token);
    await writeFile(path.join(accountDir, 'ca.crt'), cluster.caPem);
    await writeFile(path.join(accountDir, 'namespace'), NAMESPACE);
    const url = new URL(cluster.server);
    const saved = { host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT };
    // client-node reads the service's address from the process environment, as client-go does.
    process.env.KUBERNETES_SERVICE_HOST = url.hostname;
    process.env.KUBERNETES_SERVICE_PORT = url.port;
    try {
      const connection = loadKubeConnection(process.env, { inClusterRoot: root });
      assert.equal(await whoAmI(new KubeClient(connection)), ROBOT);
    } finally {
      if (saved.host === undefined) delete process.env.KUBERNETES_SERVICE_HOST;
      else process.env.KUBERNETES_SERVICE_HOST = saved.host;
      if (saved.port === undefined) delete process.env.KUBERNETES_SERVICE_PORT;
      else process.env.KUBERNETES_SERVICE_PORT = saved.port;
    }
  });

  it('says what to set when there is neither a kubeconfig nor a service account', () => {
    assert.throws(
      () => loadKubeConnection({}, { inClusterRoot: path.join(dir, 'nothing') }),
      (error: unknown) => error instanceof KubeConfigError && /Set KUBECONFIG/.test(error.describe()),
    );
  });
});
