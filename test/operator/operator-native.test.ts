import assert from 'node:assert/strict';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ReleaseEngine } from '../../src/delivery/native/release-engine.ts';
import {
  eventually,
  setOperatorConfig,
  startOperatorEnvironment,
  stateModuleFiles,
  waitReady,
  type E2eOperator,
  type OperatorEnvironment,
} from './operator-e2e-kit.ts';

/**
 * KADDON_DELIVERY (docs/delivery.md) in a running operator: the native engine delivers, and with
 * either engine a restart over unchanged modules starts no helm process beyond the `helm version`
 * check at start. The helm binary the operator gets is a script that logs each call, then runs
 * the real helm.
 */

const NAMESPACE = 'kaddon-native-e2e';
let env: OperatorEnvironment;
let helmLog: string;

before(async () => {
  env = await startOperatorEnvironment({ namespace: NAMESPACE, prefix: 'operator-native' });
  helmLog = path.join(env.tree.root, 'helm-calls.log');
  const wrapper = path.join(env.tree.root, 'helm-logged');
  await writeFile(wrapper, `#!/bin/sh\necho "$1" >> '${helmLog}'\nexec '${env.helmPath}' "$@"\n`);
  await chmod(wrapper, 0o755);
  env.tree.write('modules/010-alpha', {
    ...stateModuleFiles(NAMESPACE, 'alpha', '  rev: "$(alpha.rev)"\n'),
    'values.yaml': 'alphaEnabled: true\nalpha:\n  rev: 0\n',
  });
  env.tree.write('modules/020-beta', {
    ...stateModuleFiles(NAMESPACE, 'beta', '  fixed: "yes"\n'),
    'values.yaml': 'betaEnabled: true\n',
  });
});
after(() => env.stop());

async function startWith(delivery: 'helm' | 'native'): Promise<E2eOperator> {
  await writeFile(helmLog, '');
  const operator = env.startOperator({
    forceKillAfterDelay: 30_000,
    extraEnv: { KADDON_DELIVERY: delivery, KADDON_HELM_PATH: path.join(env.tree.root, 'helm-logged') },
  });
  await waitReady(operator, env.port);
  return operator;
}

async function stop(operator: E2eOperator): Promise<void> {
  operator.process.kill('SIGTERM');
  const result = await operator.process;
  assert.equal(result.exitCode, 0, operator.tail());
}

/** The helm subcommands the operator ran since it started, `version` left out. */
async function helmCalls(): Promise<string[]> {
  const lines = (await readFile(helmLog, 'utf8')).split('\n').filter((line) => line !== '');
  return lines.filter((line) => line !== 'version');
}

/**
 * Revision `revision` is the release's deployed one. A revision is recorded pending before its
 * objects are applied, so its number alone does not say the objects are there yet: on a busy
 * machine the ConfigMap was read in between and still held the previous data.
 */
function isDeployedRevision(
  status: { readonly status: string; readonly revision: number } | undefined,
  revision: number,
): boolean {
  return status?.revision === revision && status.status === 'deployed';
}

async function configMapData(name: string): Promise<unknown> {
  const object = await env.api.request('GET', `/api/v1/namespaces/${NAMESPACE}/configmaps/${name}`);
  return object.data;
}

describe('the operator with KADDON_DELIVERY', () => {
  it('delivers natively, restarts over unchanged modules without helm, and upgrades natively', async () => {
    let operator = await startWith('native');
    assert.deepEqual(await configMapData('alpha-state'), { rev: '0' });
    assert.deepEqual(await configMapData('beta-state'), { fixed: 'yes' });
    assert.deepEqual(await helmCalls(), [], 'no helm process delivered');
    assert.deepEqual(await env.helm.history('alpha', NAMESPACE), [
      { revision: 1, status: 'deployed', description: 'Install complete' },
    ]);
    await stop(operator);

    operator = await startWith('native');
    await setOperatorConfig(env.api, NAMESPACE, { alpha: 'rev: 1\n' });
    await eventually(operator, 'alpha upgraded', async () =>
      isDeployedRevision(await env.helm.status('alpha', NAMESPACE), 2) ? true : undefined,
    );
    assert.deepEqual(await configMapData('alpha-state'), { rev: '1' });
    assert.deepEqual(await helmCalls(), [], 'no helm process for the restart or the upgrade');
    assert.deepEqual((await env.helm.history('beta', NAMESPACE)).length, 1, 'beta unchanged');
    await stop(operator);
  });

  it('the helm engine takes the native releases over, and a restart starts no helm either', async () => {
    let operator = await startWith('helm');
    assert.deepEqual(await helmCalls(), [], 'unchanged modules: no helm process');
    await setOperatorConfig(env.api, NAMESPACE, { alpha: 'rev: 2\n' });
    await eventually(operator, 'alpha upgraded by helm', async () =>
      isDeployedRevision(await env.helm.status('alpha', NAMESPACE), 3) ? true : undefined,
    );
    assert.deepEqual(await helmCalls(), ['upgrade']);
    assert.deepEqual(await configMapData('alpha-state'), { rev: '2' });
    await stop(operator);

    operator = await startWith('helm');
    assert.deepEqual(await helmCalls(), [], 'a restart over unchanged modules: no helm process');
    await stop(operator);
    const reads = new ReleaseEngine({ engine: 'native', api: env.api, helm: env.helm });
    assert.deepEqual(
      (await reads.history('alpha', NAMESPACE)).map((entry) => entry.status),
      ['superseded', 'superseded', 'deployed'],
    );
  });
});
