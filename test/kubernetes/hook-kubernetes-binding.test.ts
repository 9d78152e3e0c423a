import assert from 'node:assert/strict';
import { chmodSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KubeClient, resourcePath } from '../../src/delivery/kube-client.ts';
import { connectionFromKubeconfig } from '../../src/delivery/kube-connection.ts';
import { formatBindingContexts } from '../../src/hooks/binding-context-json.ts';
import { createHookRunDeps } from '../../src/hooks/run/run-hook-deps.ts';
import { selectHookEnv } from '../../src/hooks/run/run-hook-env.ts';
import { runHook } from '../../src/hooks/run/run-hook.ts';
import { loadJqEngine } from '../../src/jq/jq-engine.ts';
import { createCapturingLogger } from '../../src/observability/logger.ts';
import type { KubeBindingTask } from '../../src/runtime/kube-monitors/kube-binding-task.ts';
import { KubeMonitors } from '../../src/runtime/kube-monitors/kube-monitors.ts';
import { loadHooks } from '../../src/runtime/lifecycle-hooks.ts';
import { startTestCluster, type TestCluster } from '../cluster/test-cluster.ts';
import { makeTempTree } from '../temp-tree.ts';

const tmp = makeTempTree('hook-k8s');
let cluster: TestCluster;
let client: KubeClient;

before(async () => {
  cluster = await startTestCluster();
  client = new KubeClient(connectionFromKubeconfig(cluster.kubeconfigPath));
  await client.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'watched' } },
  });
});
after(async () => {
  await cluster.stop();
  tmp.remove();
});

/** Waits for `condition` with a deadline; no timing is asserted. */
async function eventually(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`timed out waiting for ${what}`);
}

describe('a real hook bound to ConfigMaps', () => {
  it('receives the Synchronization, then Event contexts as objects are created, changed and deleted', async () => {
    const out = tmp.write('contexts', {});
    const dir = tmp.write('hooks', {
      'hooks/watch.sh': `#!/usr/bin/env bash
if [ "\${1:-}" = "--config" ]; then
  cat <<'CONFIG'
configVersion: v1
kubernetes:
- name: settings
  apiVersion: v1
  kind: ConfigMap
  namespace: {nameSelector: {matchNames: [watched]}}
  jqFilter: .data
CONFIG
  exit 0
fi
n=$(ls ${out} | wc -l)
cp "$BINDING_CONTEXT_PATH" ${out}/$(printf %03d "$n").json
`,
    });
    chmodSync(path.join(dir, 'hooks/watch.sh'), 0o755);
    const logger = createCapturingLogger();
    const runDeps = createHookRunDeps({
      logger,
      baseEnv: selectHookEnv(process.env),
      cwd: tmpdir(),
      tmpRoot: tmpdir(),
    });
    const jq = await loadJqEngine();
    const { hooks } = await loadHooks(
      [{ name: 'watch.sh', path: path.join(dir, 'hooks/watch.sh'), owner: { kind: 'global' } }],
      runDeps,
      jq,
    );
    const hook = hooks[0]!;
    // One hook run at a time, in order, as the main queue runs them.
    let queue = Promise.resolve();
    const onTask = (task: KubeBindingTask): void => {
      queue = queue.then(async () => {
        await runHook(
          {
            name: 'watch.sh',
            path: hook.descriptor.path,
            bindingContextJson: formatBindingContexts(task.contexts),
            valuesJson: '{}',
            configValuesJson: '{}',
          },
          runDeps,
        );
      });
    };
    const monitors = new KubeMonitors({ api: client, jq, logger, onTask });
    const configMaps = resourcePath(await client.resolveResource('v1', 'ConfigMap'), 'watched');
    try {
      await monitors.startHook({ id: 'watch.sh', config: hook.config });
      const received = (): unknown[] =>
        readdirSync(out)
          .sort()
          .map((file) => JSON.parse(readFileSync(path.join(out, file), 'utf8')) as unknown);
      await eventually(() => received().length === 1, 'the Synchronization run');
      await client.request('POST', configMaps, {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app' }, data: { level: 'info' } },
      });
      await eventually(() => received().length === 2, 'the Added run');
      await client.request('PATCH', `${configMaps}/app`, {
        body: { metadata: { labels: { touched: 'yes' } } },
        contentType: 'application/merge-patch+json',
      });
      await client.request('PATCH', `${configMaps}/app`, {
        body: { data: { level: 'debug' } },
        contentType: 'application/merge-patch+json',
      });
      await eventually(() => received().length === 3, 'the Modified run');
      await client.request('DELETE', `${configMaps}/app`);
      await eventually(() => received().length === 4, 'the Deleted run');
      const contexts = received() as [Record<string, unknown>][];
      assert.deepEqual(contexts[0], [{ binding: 'settings', type: 'Synchronization', objects: [] }]);
      const summary = contexts.slice(1).map(([context]) => ({
        type: context.type,
        watchEvent: context.watchEvent,
        filterResult: context.filterResult,
        name: (context.object as { metadata?: { name?: string } } | undefined)?.metadata?.name,
      }));
      assert.deepEqual(summary, [
        { type: 'Event', watchEvent: 'Added', filterResult: { level: 'info' }, name: 'app' },
        { type: 'Event', watchEvent: 'Modified', filterResult: { level: 'debug' }, name: 'app' },
        { type: 'Event', watchEvent: 'Deleted', filterResult: { level: 'debug' }, name: 'app' },
      ]);
    } finally {
      await monitors.stop();
      await queue;
    }
  });
});
