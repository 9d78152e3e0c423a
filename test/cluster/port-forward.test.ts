import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { inspect } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { KubeConfig, PortForward } from '@kubernetes/client-node';
import { requestApi } from './api-request.ts';
import {
  ensureClusterBinaries,
  ensureControllerBinaries,
  type ClusterBinaries,
  type ControllerBinaries,
} from './cluster-binaries.ts';
import { isUnobtainable } from './cluster-error.ts';
import { ensureHelm, type HelmBinaries } from './ensure-helm.ts';
import { forwardPodPort } from './kwok-port-forward.ts';
import { startTestCluster, type TestCluster } from './test-cluster.ts';

/** The binaries, or why they cannot be had; KADDON_REQUIRE_CLUSTER=1 turns that into a failure. */
async function obtainBinaries(): Promise<
  { cluster: ClusterBinaries; controllers: ControllerBinaries; helm: HelmBinaries } | string
> {
  try {
    return {
      cluster: await ensureClusterBinaries(),
      controllers: await ensureControllerBinaries(),
      helm: await ensureHelm(),
    };
  } catch (error: unknown) {
    if (!isUnobtainable(error) || process.env.KADDON_REQUIRE_CLUSTER === '1') throw error;
    return `controller binaries cannot be obtained on this machine: ${error.describe()}`;
  }
}

const binaries = await obtainBinaries();
const skip = typeof binaries === 'string' ? binaries : false;
const tools = typeof binaries === 'string' ? undefined : binaries;

const namespace = 'port-forward';
const podName = 'web';
/** The port the Pod declares; nothing listens on it, KWOK tunnels it to the local server. */
const podPort = 8080;

interface HttpAnswer {
  readonly status: number;
  readonly body: string;
}

function getLocal(port: number, urlPath: string): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port, path: urlPath, timeout: 10_000 }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => {
        resolve({ status: response.statusCode ?? 0, body });
      });
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error(`GET ${urlPath} timed out`)));
    request.on('error', reject);
  });
}

/** The server a port-forward to the Pod should reach: it answers with the path it was asked for. */
async function startAnsweringServer(): Promise<http.Server> {
  const server = http.createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.end(`answered ${request.url ?? ''}`);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

function portOf(server: net.Server): number {
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object');
  return address.port;
}

/**
 * As `kaddon ui` does: a local listener whose every connection is one port-forward through the
 * apiserver's websocket portforward subresource.
 */
async function listenThroughClientNode(cluster: TestCluster): Promise<net.Server> {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(cluster.kubeconfigPath);
  const portForward = new PortForward(kubeConfig);
  const listener = net.createServer((socket) => {
    portForward.portForward(namespace, podName, [podPort], socket, null, socket).catch((error: unknown) => {
      // It rejects with the websocket's error event, not an Error: show what it holds.
      socket.destroy(error instanceof Error ? error : new Error(`port-forward failed: ${inspect(error)}`));
    });
  });
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  return listener;
}

/** `kubectl port-forward` on a port of its choosing; resolves with that port once it forwards. */
async function startKubectlPortForward(
  kubectl: string,
  kubeconfig: string,
): Promise<{ child: ChildProcess; port: number }> {
  const args = ['--kubeconfig', kubeconfig, '-n', namespace, 'port-forward', `pod/${podName}`, `:${podPort}`];
  const child = spawn(kubectl, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Forwarding from 127\.0\.0\.1:(\d+) ->/u.exec(output);
      if (match?.[1] !== undefined) resolve(Number(match[1]));
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', (code) => {
      reject(new Error(`kubectl port-forward exited with ${String(code)}:\n${output}`));
    });
  });
  return { child, port };
}

describe('port-forward to a Pod on a fake Node', { skip }, () => {
  let started: TestCluster | undefined;
  let answering: http.Server | undefined;
  const cluster = () => started!;

  async function create(apiPath: string, object: object): Promise<void> {
    const response = await requestApi(cluster(), 'POST', apiPath, object);
    assert.equal(response.status, 201, response.body);
  }

  async function waitUntilRunning(): Promise<void> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const response = await requestApi(cluster(), 'GET', `/api/v1/namespaces/${namespace}/pods/${podName}`);
      const pod = JSON.parse(response.body) as { status?: { phase?: string } };
      if (pod.status?.phase === 'Running') return;
      if (Date.now() > deadline) assert.fail(`Pod ${podName} not Running: ${response.body}`);
      await sleep(250);
    }
  }

  before(async () => {
    started = await startTestCluster({
      withControllers: true,
      withPortForward: true,
      binaries: tools!.cluster,
      controllerBinaries: tools!.controllers,
    });
    answering = await startAnsweringServer();
    await create('/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: namespace },
    });
    await forwardPodPort(cluster(), namespace, podName, podPort, portOf(answering));
    await create(`/api/v1/namespaces/${namespace}/pods`, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: podName },
      spec: {
        containers: [{ name: 'app', image: 'kaddon.test/fake:1', ports: [{ containerPort: podPort }] }],
      },
    });
    await waitUntilRunning();
  });
  after(async () => {
    answering?.close();
    await started?.stop();
  });

  it("reaches the local server through @kubernetes/client-node's PortForward", async () => {
    const listener = await listenThroughClientNode(cluster());
    try {
      const answer = await getLocal(portOf(listener), '/through/client-node');
      assert.deepEqual(answer, { status: 200, body: 'answered /through/client-node' });
    } finally {
      listener.close();
    }
  });

  it('reaches the local server through kubectl port-forward', async () => {
    const { child, port } = await startKubectlPortForward(tools!.helm.kubectl, cluster().kubeconfigPath);
    try {
      const answer = await getLocal(port, '/through/kubectl');
      assert.deepEqual(answer, { status: 200, body: 'answered /through/kubectl' });
    } finally {
      child.kill();
    }
  });
});
