import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isJsonObject, type JsonObject } from '../../src/core/json.ts';
import { makeGitFixture, type GitFixture } from '../sources/git-fixture.ts';
import { sample, scrapeMetrics } from './metrics-scrape.ts';
import {
  eventually,
  setOperatorConfig,
  startGitOperator,
  startOperatorEnvironment,
  stateModuleFiles,
  waitReady,
  type E2eOperator,
  type OperatorEnvironment,
} from './operator-e2e-kit.ts';

const NAMESPACE = 'kaddon-missing-inputs-e2e';
const CONFIG_MAP = `/api/v1/namespaces/${NAMESPACE}/configmaps/addon-operator`;
const MODULES = ['gen-a', 'gen-b', 'gen-c', 'gen-d'];

let env: OperatorEnvironment;
let repo: GitFixture;
let operator: E2eOperator;

/** Four modules, each a ConfigMap `<module>-state` showing its greeting; gen-d is enabled only by the ConfigMap. */
function moduleTree(): Record<string, string> {
  const files: Record<string, string> = {
    'modules/values.yaml': 'global: {}\ngenAEnabled: true\ngenBEnabled: true\ngenCEnabled: true\n',
  };
  MODULES.forEach((module, index) => {
    const key = `gen${module.slice(-1).toUpperCase()}`;
    const dir = `modules/0${String(index + 1)}0-${module}`;
    files[`${dir}/values.yaml`] = `${key}:\n  greeting: hello\n`;
    for (const [file, text] of Object.entries(
      stateModuleFiles(NAMESPACE, module, `  greeting: $(${key}.greeting)\n`),
    ))
      files[`${dir}/${file}`] = text;
  });
  return files;
}

before(async () => {
  env = await startOperatorEnvironment({ namespace: NAMESPACE, prefix: 'operator-missing-inputs-e2e' });
  repo = makeGitFixture('missing-inputs');
  repo.write(moduleTree());
  repo.commit('four modules');
  await setOperatorConfig(env.api, NAMESPACE, { genDEnabled: 'true', genA: 'greeting: custom\n' });
  operator = startGitOperator(env, repo.fileUrl);
  await waitReady(operator, env.port);
});

after(async () => {
  await env.stop();
  repo.remove();
});

async function revisions(): Promise<Record<string, number | undefined>> {
  const out: Record<string, number | undefined> = {};
  for (const module of MODULES) out[module] = (await env.helm.status(module, NAMESPACE))?.revision;
  return out;
}

async function greeting(module: string): Promise<unknown> {
  const state = await env.api.request('GET', `/api/v1/namespaces/${NAMESPACE}/configmaps/${module}-state`);
  return isJsonObject(state.data) ? state.data.greeting : undefined;
}

/** Events about the operator's ConfigMap with `reason`. */
async function configMapEvents(reason: string): Promise<JsonObject[]> {
  const list = await env.api.request('GET', `/apis/events.k8s.io/v1/namespaces/${NAMESPACE}/events`);
  return (Array.isArray(list.items) ? list.items.filter(isJsonObject) : []).filter((event) => {
    const regarding = isJsonObject(event.regarding) ? event.regarding : {};
    return event.reason === reason && regarding.kind === 'ConfigMap' && regarding.name === 'addon-operator';
  });
}

/** How often the Events happened: a repeated one is one Event with a series count. */
function occurrences(events: readonly JsonObject[]): number {
  return events.reduce(
    (sum, event) =>
      sum + (isJsonObject(event.series) && typeof event.series.count === 'number' ? event.series.count : 1),
    0,
  );
}

async function heldGauge(): Promise<number | undefined> {
  return sample(await scrapeMetrics(env.port), 'addon_operator_prune_held_modules');
}

/** The id of the latest hold the log reports for `releases`. */
function heldId(releases: string): string | undefined {
  const lines = operator.output().split('\n');
  const held = lines.filter(
    (line) => line.includes('uninstalls held') && line.includes(`releases=${releases}`),
  );
  return /\bid=([0-9a-f]{12})\b/u.exec(held.at(-1) ?? '')?.[1];
}

describe('kaddon operator: a missing input is never an empty one', () => {
  it('keeps the config of a deleted ConfigMap in force, re-creates it, and takes later edits', async () => {
    assert.deepEqual(await revisions(), { 'gen-a': 1, 'gen-b': 1, 'gen-c': 1, 'gen-d': 1 });
    assert.equal(await greeting('gen-a'), 'custom');

    await env.api.request('DELETE', CONFIG_MAP);
    const recreated = await eventually(operator, 'the ConfigMap re-created', async () => {
      const configMap = await env.api.request('GET', CONFIG_MAP);
      return isJsonObject(configMap.data) ? configMap.data : undefined;
    });
    assert.deepEqual(recreated, { genDEnabled: 'true', genA: 'greeting: custom\n' });
    await eventually(operator, 'Event ConfigMapDeleted', async () =>
      (await configMapEvents('ConfigMapDeleted')).length > 0 ? true : undefined,
    );
    assert.match(operator.output(), /level=warn msg="ConfigMap deleted; its last config stays in force/u);

    // A later edit goes through the same queue a reset would have: once it is delivered, nothing else was.
    await setOperatorConfig(env.api, NAMESPACE, { genA: 'greeting: edited\n' });
    await eventually(operator, 'gen-a edited', async () =>
      (await greeting('gen-a')) === 'edited' ? true : undefined,
    );
    assert.deepEqual(await revisions(), { 'gen-a': 2, 'gen-b': 1, 'gen-c': 1, 'gen-d': 1 });
    assert.equal(await greeting('gen-a'), 'edited');
  });

  it('holds a ConfigMap edit that disables most modules, and lets it go when undone', async () => {
    await setOperatorConfig(env.api, NAMESPACE, {
      genAEnabled: 'false',
      genBEnabled: 'false',
      genCEnabled: 'false',
    });
    await eventually(operator, 'the uninstalls held', async () =>
      (await heldGauge()) === 3 ? true : undefined,
    );
    assert.ok(heldId('gen-a,gen-b,gen-c'), operator.tail());
    await eventually(operator, 'Event UninstallsHeld', async () =>
      (await configMapEvents('UninstallsHeld')).length > 0 ? true : undefined,
    );
    assert.deepEqual(await revisions(), { 'gen-a': 2, 'gen-b': 1, 'gen-c': 1, 'gen-d': 1 });

    await setOperatorConfig(env.api, NAMESPACE, {
      genAEnabled: 'true',
      genBEnabled: 'true',
      genCEnabled: 'true',
    });
    await eventually(operator, 'the hold ended', async () => ((await heldGauge()) === 0 ? true : undefined));
    assert.deepEqual(await revisions(), { 'gen-a': 2, 'gen-b': 1, 'gen-c': 1, 'gen-d': 1 });
  });

  it('holds a commit that deletes every module, reports it, and uninstalls once confirmed', async () => {
    repo.delete(...MODULES.map((module, index) => `modules/0${String(index + 1)}0-${module}`));
    repo.write({ 'modules/values.yaml': 'global: {}\n' });
    const empty = repo.commit('every module deleted');
    await eventually(operator, 'the tree switched', () =>
      Promise.resolve(operator.output().includes(empty) ? true : undefined),
    );
    await eventually(operator, 'the purges held', async () => ((await heldGauge()) === 4 ? true : undefined));
    const id = await eventually(operator, 'the hold logged', () =>
      Promise.resolve(heldId('gen-d,gen-c,gen-b,gen-a')),
    );
    await eventually(operator, 'the second hold recorded', async () =>
      occurrences(await configMapEvents('UninstallsHeld')) === 2 ? true : undefined,
    );
    assert.deepEqual(await revisions(), { 'gen-a': 2, 'gen-b': 1, 'gen-c': 1, 'gen-d': 1 });
    // Held releases keep their Module objects.
    await env.api.request('GET', '/apis/kaddon.dev/v1alpha1/modules/gen-b');

    await env.api.request('PATCH', CONFIG_MAP, {
      body: { metadata: { annotations: { 'kaddon.dev/allow-prune': id } } },
      contentType: 'application/merge-patch+json',
    });
    await eventually(operator, 'every release purged', async () =>
      (await env.helm.list(NAMESPACE)).length === 0 ? true : undefined,
    );
    assert.equal(await heldGauge(), 0);

    operator.process.kill('SIGTERM');
    const result = await operator.process;
    assert.equal(result.exitCode, 0, operator.tail());
  });
});
