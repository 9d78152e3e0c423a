import assert from 'node:assert/strict';
import { execa, type ResultPromise } from 'execa';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { buildUi } from '../../scripts/build-ui.mjs';
import { forwardPodPort } from '../cluster/kwok-port-forward.ts';
import { repoRoot } from '../repo-root.ts';
import {
  eventually,
  setOperatorConfig,
  startOperatorEnvironment,
  stateModuleFiles,
  waitReady,
  type E2eOperator,
  type OperatorEnvironment,
} from '../operator/operator-e2e-kit.ts';
import { CONFIG_MAP_READ, signInUsers } from './ui-users.ts';

// `kaddon ui` as a user on a workstation runs it (docs/ui.md "Opening it from a workstation"): a
// real operator serves the page on loopback, its "Pod" is a Deployment's Pod on a KWOK node whose
// kubelet API KWOK serves, so the port-forward goes through the real API server's
// pods/portforward to the operator (test/cluster/README.md "Port-forward to a fake Pod").

const NAMESPACE = 'kaddon-ui-forward';
/** The container port the operator's Pod names `http`, as deploy/base's Deployment does. */
const POD_PORT = 9650;

let env: OperatorEnvironment;
let operator: E2eOperator;
let token = '';
let podName = '';

before(async () => {
  await buildUi(path.join(repoRoot, 'dist/ui'));
  env = await startOperatorEnvironment({
    namespace: NAMESPACE,
    prefix: 'kaddon-ui',
    withControllers: true,
    withPortForward: true,
  });
  env.tree.write('modules/010-web', stateModuleFiles(NAMESPACE, 'web', '  a: "1"\n'));
  env.tree.write('modules/010-web', { 'values.yaml': 'webEnabled: true\n' });
  await setOperatorConfig(env.api, NAMESPACE, {});
  ({ admin: token = '' } = await signInUsers(env.api, NAMESPACE, {
    admin: { modules: true, rules: [CONFIG_MAP_READ] },
  }));
  operator = env.startOperator({ forceKillAfterDelay: 30_000 });
  await waitReady(operator, env.port, 180_000);
  podName = await operatorPod();
  // KWOK tunnels the Pod's port to the operator listening on loopback.
  await forwardPodPort(env.cluster, NAMESPACE, podName, POD_PORT, env.port);
});

after(async () => {
  await env.stop();
});

/** The Deployment `kaddon` of deploy/base, reduced to what `kaddon ui` reads; its Pod's name once Ready. */
async function operatorPod(): Promise<string> {
  await env.api.request('POST', `/apis/apps/v1/namespaces/${NAMESPACE}/deployments`, {
    body: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'kaddon' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { 'app.kubernetes.io/name': 'kaddon' } },
        template: {
          metadata: { labels: { 'app.kubernetes.io/name': 'kaddon' } },
          spec: {
            containers: [
              { name: 'kaddon', image: 'kaddon:latest', ports: [{ name: 'http', containerPort: POD_PORT }] },
            ],
          },
        },
      },
    },
  });
  return eventually(operator, "the Deployment's Pod Running and Ready", async () => {
    const list = await env.api.request('GET', `/api/v1/namespaces/${NAMESPACE}/pods`, {
      query: { labelSelector: 'app.kubernetes.io/name=kaddon' },
    });
    const pods = (list.items ?? []) as {
      metadata: { name: string };
      status?: { phase?: string; conditions?: { type: string; status: string }[] };
    }[];
    const ready = pods.find(
      (pod) =>
        pod.status?.phase === 'Running' &&
        pod.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true,
    );
    return ready?.metadata.name;
  });
}

/** The namespace is found from the cluster, as on a workstation with no operator settings. */
function withoutNamespace(environment: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(environment).filter(([name]) => name !== 'ADDON_OPERATOR_NAMESPACE'),
  );
}

/** Starts `kaddon ui ARGS` as a user would; resolves with the URL it prints, and the process. */
async function startUi(
  args: readonly string[],
): Promise<{ url: string; child: ResultPromise; output: () => string }> {
  const child = execa(process.execPath, [path.join(repoRoot, 'bin/kaddon.js'), 'ui', ...args], {
    env: withoutNamespace({ ...process.env, KUBECONFIG: env.cluster.kubeconfigPath }),
    extendEnv: false,
    reject: false,
    all: true,
  });
  let printed = '';
  child.all.on('data', (chunk: Buffer) => {
    printed += chunk.toString('utf8');
  });
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`kaddon ui printed no URL within 60 s:\n${printed}`));
    }, 60_000);
    lines.on('line', (line) => {
      const found = / at (http:\/\/\S+\/ui\/)$/u.exec(line);
      if (found?.[1] === undefined) return;
      clearTimeout(timer);
      resolve(found[1]);
    });
    void child.then(() => {
      clearTimeout(timer);
      reject(new Error(`kaddon ui exited before printing a URL:\n${printed}`));
    });
  });
  return { url, child, output: () => printed };
}

describe('kaddon ui', () => {
  it("forwards a local port to the operator's Pod, finds its namespace and Pod itself, and ends cleanly on Ctrl-C", async () => {
    const ui = await startUi(['--port', '0', '--no-open']);
    assert.match(
      ui.output(),
      new RegExp(`the status page of ${NAMESPACE}/${podName} \\(port ${String(POD_PORT)}\\)`, 'u'),
    );
    assert.match(ui.output(), /namespace 'kaddon-ui-forward', which holds the operator's ConfigMap/u);
    const page = await fetch(ui.url);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<title>kaddon<\/title>/u);
    // The API through the forward, with a token as the page sends it; several connections at once.
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        fetch(new URL('api/modules', ui.url), { headers: { authorization: `Bearer ${token}` } }),
      ),
    );
    for (const answer of answers) {
      assert.equal(answer.status, 200);
      assert.deepEqual(
        ((await answer.json()) as { name: string }[]).map((module) => module.name),
        ['web'],
      );
    }
    ui.child.kill('SIGINT');
    const ended = await ui.child;
    assert.equal(ended.exitCode, 0, ui.output());
    await assert.rejects(fetch(ui.url), 'the port is closed once kaddon ui has ended');
  });

  it('takes the Pod and the local port it is told, and says when the port is taken or the Pod absent', async () => {
    const ui = await startUi(['--pod', podName, '--namespace', NAMESPACE, '--port', '0', '--no-open']);
    const port = new URL(ui.url).port;
    assert.equal((await fetch(ui.url)).status, 200);
    const taken = await execa(
      process.execPath,
      [path.join(repoRoot, 'bin/kaddon.js'), 'ui', '--namespace', NAMESPACE, '--port', port, '--no-open'],
      { env: { KUBECONFIG: env.cluster.kubeconfigPath }, reject: false },
    );
    assert.equal(taken.exitCode, 1, taken.stderr);
    assert.match(taken.stderr, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is in use.*--port 0`, 'su'));
    ui.child.kill('SIGINT');
    assert.equal((await ui.child).exitCode, 0);
    const absent = await execa(
      process.execPath,
      [path.join(repoRoot, 'bin/kaddon.js'), 'ui', '--namespace', NAMESPACE, '--pod', 'nope', '--no-open'],
      { env: { KUBECONFIG: env.cluster.kubeconfigPath }, reject: false },
    );
    assert.equal(absent.exitCode, 1);
    assert.match(absent.stderr, /no Pod 'nope' in namespace 'kaddon-ui-forward'/u);
  });
});
