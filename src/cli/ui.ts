import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { parseArgs } from 'node:util';
import { KubeClient } from '../delivery/kube-client.ts';
import { loadKubeConnection } from '../delivery/kube-connection.ts';
import { findOperatorNamespace } from '../delivery/operator-namespace.ts';
import { forwardLocalPort } from '../delivery/port-forward.ts';
import { findOperatorPod } from '../runtime/operator-pod.ts';
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
  const pod = await findOperatorPod(api, namespace, { pod: values.pod, deployment: values.deployment });
  const stop = stopOnSignals();
  const forward = await forwardLocalPort({
    connection,
    namespace,
    pod: pod.name,
    podPort: pod.port,
    address: values.address,
    port: localPort,
    onProblem: (text) => {
      io.stderr(`ui: ${text}\n`);
    },
  });
  try {
    const port = forward.port;
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
    await forward.close();
  }
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
