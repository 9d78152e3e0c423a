import { spawn } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { request as httpRequest } from 'node:http';
import { parseArgs } from 'node:util';
import { PortForward } from '@kubernetes/client-node';
import { isJsonObject, type JsonObject } from '../core/json.ts';
import { KaddonError } from '../core/errors.ts';
import { KubeApiError, KubeClient } from '../delivery/kube-client.ts';
import { loadKubeConnection, type KubeConnection } from '../delivery/kube-connection.ts';
import { findOperatorNamespace } from '../delivery/operator-namespace.ts';
import { LEASE_NAME } from '../runtime/leader-election.ts';
import { SettingReader } from '../config/setting-reader.ts';
import type { CliIo } from './cli-io.ts';
import { stopOnSignals } from './stop-on-signals.ts';
import { UsageError } from './usage-error.ts';

export const uiUsage = `Usage: kaddon ui [options]

Opens the operator's status page (docs/ui.md) from a workstation: forwards a local port to the
operator's Pod through the API server, as \`kubectl port-forward\` does, prints the page's URL and
opens it in the browser when there is one. Ctrl-C ends it. The page still asks who you are: sign
in, or paste a token (\`kubectl create token\`).

Options:
  --kube-config FILE       the cluster (default $KUBE_CONFIG or $KUBECONFIG)
  --kube-context NAME      the kubeconfig context (default $KUBE_CONTEXT, else the current one)
  --namespace NS           the operator's namespace (default $ADDON_OPERATOR_NAMESPACE, else the
                           one namespace holding the operator's ConfigMap)
  --config-map NAME        the operator's ConfigMap, to find its namespace (default
                           $ADDON_OPERATOR_CONFIG_MAP, else addon-operator)
  --deployment NAME        the operator's Deployment (default kaddon); its Pods are the candidates,
                           the leader first
  --pod NAME               this Pod instead
  --port N                 the local port (default 9650; 0: any free port)
  --address ADDRESS        the local address to listen on (default 127.0.0.1)
  --no-open                print the URL only`;

const DEFAULT_PORT = 9650;

/** No Pod of the operator to forward to. */
class OperatorPodError extends KaddonError {
  readonly code = 'operator-pod-unknown';
  constructor(problem: string, hint: string) {
    super(`kaddon ui: ${problem}.`, hint);
  }
}

/** The local port cannot be listened on. */
class LocalPortError extends KaddonError {
  readonly code = 'local-port-unavailable';
  constructor(problem: string, hint: string) {
    super(`kaddon ui: ${problem}.`, hint);
  }
}

/** `kaddon ui`: a port-forward to the operator's status page, until Ctrl-C. */
export async function runUi(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      help: { type: 'boolean', short: 'h', default: false },
      'kube-config': { type: 'string' },
      'kube-context': { type: 'string' },
      namespace: { type: 'string' },
      'config-map': { type: 'string' },
      deployment: { type: 'string', default: 'kaddon' },
      pod: { type: 'string' },
      port: { type: 'string', default: String(DEFAULT_PORT) },
      address: { type: 'string', default: '127.0.0.1' },
      'no-open': { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    io.stdout(`${uiUsage}\n`);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0] ?? ''}'`, uiUsage);
  const localPort = Number(values.port);
  if (!/^\d{1,5}$/u.test(values.port) || localPort > 65535)
    throw new UsageError(`--port must be a port number from 0 to 65535, not '${values.port}'`, uiUsage);
  const read = new SettingReader(process.env, {
    'kube-config': values['kube-config'],
    'kube-context': values['kube-context'],
    namespace: values.namespace,
    'config-map': values['config-map'],
  });
  const connection = loadKubeConnection(process.env, {
    kubeconfig: read.find('kubeconfig')?.value,
    context: read.find('kubeContext')?.value,
  });
  const api = new KubeClient(connection);
  const namespace =
    read.find('namespace')?.value ??
    (await findOperatorNamespace(api, read.text('configMap', 'addon-operator'), (note) => {
      io.stderr(`ui: ${note}\n`);
    }));
  const pod = await operatorPod(api, namespace, values.pod, values.deployment);
  const stop = stopOnSignals();
  const server = await listen(forwarder(connection, namespace, pod, io), values.address, localPort);
  try {
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : localPort;
    const host = values.address.includes(':') ? `[${values.address}]` : values.address;
    const url = `http://${host}:${String(port)}/ui/`;
    const answer = await statusOf(url);
    io.stdout(
      `kaddon ui: the status page of ${namespace}/${pod.name} (port ${String(pod.port)}) at ${url}\n`,
    );
    if (answer !== 200)
      io.stderr(
        `ui: the page answered ${answer === undefined ? 'nothing' : `HTTP ${String(answer)}`} through the forward; is KADDON_UI on?\n`,
      );
    if (!values['no-open']) openBrowser(url, io);
    io.stdout('Forwarding until Ctrl-C.\n');
    await new Promise<void>((resolve) => {
      if (stop.signal.aborted) resolve();
      stop.signal.addEventListener('abort', () => {
        resolve();
      });
    });
    return 0;
  } finally {
    stop.release();
    await closeServer(server);
  }
}

interface OperatorPod {
  readonly name: string;
  /** The container port named `http` (the operator's listen port), else 9650. */
  readonly port: number;
}

/**
 * The Pod to forward to: `--pod`, else the Deployment's Pods that are Running and Ready, the
 * holder of the operator's leader Lease first (with KADDON_HA only the leader serves the page).
 */
async function operatorPod(
  api: KubeClient,
  namespace: string,
  named: string | undefined,
  deployment: string,
): Promise<OperatorPod> {
  const ns = encodeURIComponent(namespace);
  if (named !== undefined) {
    const pod = await api
      .request('GET', `/api/v1/namespaces/${ns}/pods/${encodeURIComponent(named)}`)
      .catch((error: unknown) => {
        if (error instanceof KubeApiError && error.status === 404)
          throw new OperatorPodError(
            `no Pod '${named}' in namespace '${namespace}'`,
            'Check the name with `kubectl get pods`.',
          );
        throw error;
      });
    return { name: named, port: httpPort(pod) };
  }
  let selector: string;
  try {
    const found = await api.request(
      'GET',
      `/apis/apps/v1/namespaces/${ns}/deployments/${encodeURIComponent(deployment)}`,
    );
    selector = labelSelector(found);
  } catch (error: unknown) {
    if (error instanceof KubeApiError && error.status === 404)
      throw new OperatorPodError(
        `no Deployment '${deployment}' in namespace '${namespace}'`,
        "Name the operator's Deployment with --deployment, or its Pod with --pod.",
      );
    throw error;
  }
  const list = await api.request('GET', `/api/v1/namespaces/${ns}/pods`, {
    query: { labelSelector: selector },
  });
  const chosen = choosePod(Array.isArray(list.items) ? list.items : [], await leaseHolder(api, ns));
  if (chosen === undefined)
    throw new OperatorPodError(
      `no Pod of Deployment '${deployment}' in namespace '${namespace}' is Running and Ready`,
      `See why with \`kubectl -n ${namespace} get pods -l ${selector}\`, or name a Pod with --pod.`,
    );
  return { name: podName(chosen), port: httpPort(chosen) };
}

async function leaseHolder(api: KubeClient, ns: string): Promise<string | undefined> {
  try {
    const lease = await api.request(
      'GET',
      `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/${LEASE_NAME}`,
    );
    const holder = isJsonObject(lease.spec) ? lease.spec.holderIdentity : undefined;
    return typeof holder === 'string' ? holder : undefined;
  } catch (error: unknown) {
    // No Lease (one replica without KADDON_HA) or no right to read it: any Ready Pod serves the page.
    if (error instanceof KubeApiError && (error.status === 404 || error.status === 403)) return undefined;
    throw error;
  }
}

function labelSelector(deployment: JsonObject): string {
  const spec = isJsonObject(deployment.spec) ? deployment.spec : {};
  const selector = isJsonObject(spec.selector) ? spec.selector : {};
  const labels = isJsonObject(selector.matchLabels) ? selector.matchLabels : {};
  return Object.entries(labels)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(',');
}

/**
 * The Pod to forward to among a Deployment's: a Running and Ready one, the leader Lease's holder
 * when it is one of them (with KADDON_HA only the leader serves the page), else the first.
 */
export function choosePod(pods: readonly unknown[], leader: string | undefined): JsonObject | undefined {
  const ready = pods.filter(isJsonObject).filter(isRunningAndReady);
  return ready.find((pod) => podName(pod) === leader) ?? ready[0];
}

function podName(pod: JsonObject): string {
  const name = isJsonObject(pod.metadata) ? pod.metadata.name : undefined;
  return typeof name === 'string' ? name : '';
}

function isRunningAndReady(pod: JsonObject): boolean {
  const status = isJsonObject(pod.status) ? pod.status : {};
  const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isJsonObject) : [];
  return status.phase === 'Running' && conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

function httpPort(pod: JsonObject): number {
  const spec = isJsonObject(pod.spec) ? pod.spec : {};
  const containers = Array.isArray(spec.containers) ? spec.containers.filter(isJsonObject) : [];
  for (const container of containers) {
    const ports = Array.isArray(container.ports) ? container.ports.filter(isJsonObject) : [];
    const http = ports.find((port) => port.name === 'http');
    if (typeof http?.containerPort === 'number') return http.containerPort;
  }
  return DEFAULT_PORT;
}

/** The part of the forward's WebSocket this command uses. */
interface ForwardStream {
  close(): void;
  on(event: 'error', listener: (error: Error) => void): void;
}

/** Each local connection gets a stream of its own to the Pod's port, through the API server. */
function forwarder(
  connection: KubeConnection,
  namespace: string,
  pod: OperatorPod,
  io: CliIo,
): (socket: Socket) => void {
  const forward = new PortForward(connection.config, true);
  const told = new Set<string>();
  const tell = (text: string): void => {
    if (told.has(text)) return;
    told.add(text);
    io.stderr(`ui: ${text}\n`);
  };
  return (socket) => {
    socket.on('error', () => socket.destroy());
    const opening = forward.portForward(namespace, pod.name, [pod.port], socket, null, socket) as Promise<
      ForwardStream | (() => ForwardStream | null)
    >;
    opening
      .then((opened) => {
        const ws = typeof opened === 'function' ? opened() : opened;
        socket.on('close', () => ws?.close());
        ws?.on('error', (error: Error) => {
          tell(`the forward to ${namespace}/${pod.name} failed: ${error.message}`);
          socket.destroy();
        });
      })
      .catch((error: unknown) => {
        tell(
          `the API server refused the forward to ${namespace}/${pod.name}: ${error instanceof Error ? error.message : String(error)}`,
        );
        socket.destroy();
      });
  };
}

function listen(onConnection: (socket: Socket) => void, address: string, port: number): Promise<Server> {
  const server = createServer((socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    onConnection(socket);
  });
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new LocalPortError(
              `port ${String(port)} on ${address} is in use`,
              'Choose another with --port N, or --port 0 for any free port.',
            )
          : error,
      );
    });
    server.listen(port, address, () => {
      resolve(server);
    });
  });
}

/** The local connections still open: Ctrl-C ends them with the listener, and their streams with them. */
const open = new Set<Socket>();

async function closeServer(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
  });
  for (const socket of open) socket.destroy();
  await closed;
}

/** The page's answer through the forward, undefined when nothing came within 10 s. */
function statusOf(url: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const request = httpRequest(url, { method: 'HEAD', timeout: 10_000 }, (response) => {
      response.resume();
      resolve(response.statusCode);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => {
      resolve(undefined);
    });
    request.end();
  });
}

/** $BROWSER, else the desktop's opener; nothing without a display (an SSH session, a container). */
function openBrowser(url: string, io: CliIo): void {
  const command =
    process.env.BROWSER ??
    (process.platform === 'darwin'
      ? 'open'
      : process.platform === 'win32'
        ? 'explorer'
        : process.env.DISPLAY || process.env.WAYLAND_DISPLAY
          ? 'xdg-open'
          : undefined);
  if (command === undefined) return;
  try {
    const child = spawn(command, [url], { stdio: 'ignore', detached: true });
    child.on('error', () => {
      io.stderr(`ui: could not start '${command}' to open the page; open ${url} yourself\n`);
    });
    child.unref();
  } catch {
    io.stderr(`ui: could not start '${command}' to open the page; open ${url} yourself\n`);
  }
}
