import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ConfigChange } from '../../src/core/config-change.ts';
import type { JsonObject } from '../../src/core/json.ts';
import { EMPTY_CONFIG_VALUES, moduleOwner, ValuesError, type ConfigValues } from '../../src/core/values.ts';
import { parseValuesPatch } from '../../src/core/values-patch.ts';
import {
  ConfigMapConfigStore,
  type ConfigMapApi,
  type ConfigMapStoreOptions,
} from '../../src/delivery/configmap-config-store.ts';
import { KubeClient } from '../../src/delivery/kube-client.ts';
import { connectionFromKubeconfig } from '../../src/delivery/kube-connection.ts';
import { createCapturingLogger, type CapturingLogger } from '../../src/observability/logger.ts';
import type { ConfigStore } from '../../src/runtime/config-store.ts';
import { ValuesStore } from '../../src/runtime/values-store.ts';
import { startTestCluster, type TestCluster } from '../cluster/test-cluster.ts';

const NAMESPACE = 'kaddon-config';
let cluster: TestCluster;
let client: KubeClient;

before(async () => {
  cluster = await startTestCluster();
  client = new KubeClient(connectionFromKubeconfig(cluster.kubeconfigPath));
  await client.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } },
  });
});
after(async () => {
  await cluster.stop();
});

const collection = `/api/v1/namespaces/${NAMESPACE}/configmaps`;

function storeFor(
  name: string,
  api: ConfigMapApi = client,
): { store: ConfigMapConfigStore; logger: CapturingLogger } {
  const logger = createCapturingLogger();
  const options: ConfigMapStoreOptions = { logger, backoff: { initialMs: 100, maxMs: 1000, jitter: true } };
  return { store: new ConfigMapConfigStore(api, NAMESPACE, name, options), logger };
}

async function createConfigMap(name: string, data: Record<string, string>): Promise<void> {
  await client.request('POST', collection, {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data },
  });
}

async function readData(name: string): Promise<JsonObject> {
  const configMap = await client.request('GET', `${collection}/${name}`);
  return configMap.data as JsonObject;
}

/** Someone else's edit: read, change one key, write with the read resourceVersion. */
async function editKey(name: string, key: string, value: string | undefined): Promise<void> {
  const configMap = await client.request('GET', `${collection}/${name}`);
  const others = Object.entries(configMap.data as Record<string, string>).filter(([k]) => k !== key);
  const data = Object.fromEntries(value === undefined ? others : [...others, [key, value]]);
  await client.request('PUT', `${collection}/${name}`, { body: { ...configMap, data } });
}

async function deleteConfigMap(name: string): Promise<void> {
  await client.request('DELETE', `${collection}/${name}`).catch(() => undefined);
}

async function waitFor(what: string, predicate: () => boolean): Promise<void> {
  for (let waited = 0; !predicate(); waited += 50) {
    if (waited > 30_000) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface Seen {
  readonly config: ConfigValues;
  readonly change: ConfigChange;
}

describe('ConfigMapConfigStore against a real kube-apiserver', () => {
  it('loads an absent ConfigMap as empty config and a present one parsed', async () => {
    const { store } = storeFor('load');
    assert.deepEqual(await store.load(), EMPTY_CONFIG_VALUES);
    await createConfigMap('load', {
      global: 'project: demo\n',
      echoServer: 'replicas: 2\n',
      echoServerEnabled: 'false',
    });
    const config = await store.load();
    assert.deepEqual(config.global, { project: 'demo' });
    assert.deepEqual(config.modules.get('echoServer'), { replicas: 2 });
    assert.equal(config.enabled.get('echoServer'), false);
    await deleteConfigMap('load');
  });

  it('names the ConfigMap and the key when the config does not parse', async () => {
    await createConfigMap('load-bad', { echoServer: 'replicas: [1\n' });
    const { store } = storeFor('load-bad');
    await assert.rejects(store.load(), (error: unknown) => {
      assert.ok(error instanceof ValuesError);
      assert.match(error.message, new RegExp(`ConfigMap ${NAMESPACE}/load-bad`));
      assert.match(error.message, /section 'echoServer'/);
      return true;
    });
    await deleteConfigMap('load-bad');
  });

  it('saves a section as a YAML string, creating the ConfigMap and keeping other keys', async () => {
    const { store } = storeFor('save');
    await store.saveSection('echoServer', { replicas: 2, image: { tag: 'v1' } });
    assert.deepEqual(await readData('save'), { echoServer: 'image:\n  tag: v1\nreplicas: 2\n' });
    await editKey('save', 'redisEnabled', 'true');
    await store.saveSection('global', { project: 'demo' });
    assert.deepEqual(await readData('save'), {
      echoServer: 'image:\n  tag: v1\nreplicas: 2\n',
      global: 'project: demo\n',
      redisEnabled: 'true',
    });
    const config = await store.load();
    assert.deepEqual(config.modules.get('echoServer'), { replicas: 2, image: { tag: 'v1' } });
    assert.deepEqual(config.global, { project: 'demo' });
    await deleteConfigMap('save');
  });

  it('keeps an edit of another key made between its read and its write', async () => {
    await createConfigMap('race', { global: 'project: demo\n' });
    const puts: string[] = [];
    let raced = false;
    const racing: ConfigMapApi = {
      request: async (method, apiPath, options) => {
        if (method === 'PUT' && !raced) {
          raced = true;
          await editKey('race', 'redis', 'size: large\n');
        }
        if (method === 'PUT') puts.push(apiPath);
        return client.request(method, apiPath, options);
      },
      watch: (...args) => client.watch(...args),
    };
    await storeFor('race', racing).store.saveSection('echoServer', { replicas: 3 });
    assert.equal(puts.length, 2, 'the first write conflicts and is applied again');
    assert.deepEqual(await readData('race'), {
      global: 'project: demo\n',
      redis: 'size: large\n',
      echoServer: 'replicas: 3\n',
    });
    await deleteConfigMap('race');
  });

  it('keeps a ConfigMap someone else created between its read and its create', async () => {
    let raced = false;
    const racing: ConfigMapApi = {
      request: async (method, apiPath, options) => {
        if (method === 'POST' && !raced) {
          raced = true;
          await createConfigMap('race-create', { global: 'project: other\n' });
        }
        return client.request(method, apiPath, options);
      },
      watch: (...args) => client.watch(...args),
    };
    await storeFor('race-create', racing).store.saveSection('echoServer', { replicas: 1 });
    assert.deepEqual(await readData('race-create'), {
      global: 'project: other\n',
      echoServer: 'replicas: 1\n',
    });
    await deleteConfigMap('race-create');
  });

  it('reports global, enabled and module changes with their classification; a deletion keeps the config and re-creates it', async () => {
    await createConfigMap('watch', { global: 'project: demo\n', echoServer: 'replicas: 1\n' });
    const { store, logger } = storeFor('watch');
    const seen: Seen[] = [];
    const watch = store.watch((config, change) => void seen.push({ config, change }), {
      known: await store.load(),
    });
    let recreated: JsonObject | undefined;
    try {
      await editKey('watch', 'global', 'project: renamed\n');
      await waitFor('the global change', () => seen.length === 1);
      await editKey('watch', 'redisEnabled', 'true');
      await waitFor('the enabled change', () => seen.length === 2);
      await editKey('watch', 'echoServer', 'replicas: 2\n');
      await waitFor('the module change', () => seen.length === 3);
      await deleteConfigMap('watch');
      await waitFor('the re-creation', () =>
        logger.entries.some((entry) => entry.msg === 'ConfigMap re-created from its last config'),
      );
      recreated = await readData('watch');
      // A later edit is reported as before.
      await editKey('watch', 'echoServer', 'replicas: 3\n');
      await waitFor('the edit after the re-creation', () => seen.length === 4);
    } finally {
      await watch.stop();
    }
    assert.deepEqual(
      seen.map((entry) => entry.change),
      [
        { globalChanged: true, enabledChanged: [], modulesChanged: [] },
        { globalChanged: false, enabledChanged: ['redis'], modulesChanged: [] },
        { globalChanged: false, enabledChanged: [], modulesChanged: ['echoServer'] },
        { globalChanged: false, enabledChanged: [], modulesChanged: ['echoServer'] },
      ],
    );
    assert.deepEqual(seen[2]?.config.modules.get('echoServer'), { replicas: 2 });
    assert.deepEqual(recreated, {
      global: 'project: renamed\n',
      redisEnabled: 'true',
      echoServer: 'replicas: 2\n',
    });
    assert.deepEqual(seen[3]?.config.global, { project: 'renamed' }, 'nothing went back to empty');
    assert.equal(store.invalidConfigCount, 0);
  });

  it('reports an invalid edit and keeps the last good config in force', async () => {
    await createConfigMap('invalid', { global: 'project: demo\n' });
    const { store, logger } = storeFor('invalid');
    const seen: Seen[] = [];
    const known = await store.load();
    const watch = store.watch((config, change) => void seen.push({ config, change }), {
      known,
      validate: (config) => {
        if (config.global?.forbidden !== undefined) throw new Error('global.forbidden is not allowed');
      },
    });
    const errors = (): string[] =>
      logger.entries.filter((entry) => entry.level === 'error').map((entry) => String(entry.fields.reason));
    try {
      await editKey('invalid', 'echoServer', 'replicas: [1\n');
      await waitFor('the bad YAML report', () => store.invalidConfigCount === 1);
      await editKey('invalid', 'echoServer', undefined);
      await editKey('invalid', 'echo_server', 'replicas: 1\n');
      await waitFor('the bad key report', () => store.invalidConfigCount === 2);
      await editKey('invalid', 'echo_server', undefined);
      await editKey('invalid', 'global', 'forbidden: true\n');
      await waitFor('the failed validation report', () => store.invalidConfigCount === 3);
      assert.equal(seen.length, 0, 'no invalid config reaches onChange');
      assert.deepEqual(watch.config, known, 'the last good config stays in force');
      await editKey('invalid', 'global', 'project: fixed\n');
      await waitFor('the valid edit', () => seen.length === 1);
    } finally {
      await watch.stop();
    }
    assert.match(errors()[0] ?? '', /section 'echoServer' is not valid YAML/);
    assert.match(errors()[1] ?? '', /bad module name 'echo_server': should be camelCased/);
    assert.match(errors()[2] ?? '', /global\.forbidden is not allowed/);
    assert.deepEqual(seen[0]?.change, { globalChanged: true, enabledChanged: [], modulesChanged: [] });
    assert.deepEqual(seen[0].config.global, { project: 'fixed' });
    await deleteConfigMap('invalid');
  });

  it('follows the ConfigMap across an apiserver restart', async () => {
    await createConfigMap('restart', { echoServer: 'replicas: 1\n' });
    const { store } = storeFor('restart');
    const seen: Seen[] = [];
    const watch = store.watch((config, change) => void seen.push({ config, change }), {
      known: await store.load(),
    });
    try {
      await editKey('restart', 'echoServer', 'replicas: 2\n');
      await waitFor('the edit before the restart', () => seen.length === 1);
      await cluster.restartApiServer();
      await editKey('restart', 'echoServer', 'replicas: 3\n');
      await waitFor('the edit after the restart', () => seen.length === 2);
    } finally {
      await watch.stop();
    }
    assert.deepEqual(
      seen.map((entry) => entry.config.modules.get('echoServer')),
      [{ replicas: 2 }, { replicas: 3 }],
    );
    await deleteConfigMap('restart');
  });

  it("persists a hook's config values patch through the values store", async () => {
    await createConfigMap('values-store', { global: 'project: demo\n', echoServerEnabled: 'true' });
    const { store } = storeFor('values-store');
    const configStore: ConfigStore = store;
    const values = await ValuesStore.open({
      statics: { root: {}, modules: new Map() },
      modules: ['echo-server'],
      configStore,
    });
    const configPatch = parseValuesPatch('[{"op":"add","path":"/echoServer/password","value":"s3cret"}]', {
      hook: 'generate-password',
      kind: 'config',
    });
    const changes = await values.applyHookPatches(
      moduleOwner('echo-server'),
      { configPatch },
      'generate-password',
    );
    assert.deepEqual(changes.modules, ['echo-server']);
    assert.deepEqual(await readData('values-store'), {
      global: 'project: demo\n',
      echoServerEnabled: 'true',
      echoServer: 'password: s3cret\n',
    });
    await deleteConfigMap('values-store');
  });
});
