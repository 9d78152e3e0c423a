import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isJsonObject, type JsonObject } from '../../src/core/json.ts';
import { sample, scrapeMetrics } from './metrics-scrape.ts';
import {
  eventually,
  killOperatorTree,
  startOperatorEnvironment,
  waitReady,
  type E2eOperator,
  type OperatorEnvironment,
} from './operator-e2e-kit.ts';

const NAMESPACE = 'kaddon-drift';
const DEPLOYMENTS = `/apis/apps/v1/namespaces/${NAMESPACE}/deployments`;
const CONFIGMAPS = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
let env: OperatorEnvironment;
let operator: E2eOperator;

function deployment(name: string, replicas: number, image: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  labels: {tier: web}
spec:
  replicas: ${String(replicas)}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers:
      - {name: main, image: "${image}"}
`;
}

function configMap(name: string, annotations = ''): string {
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${annotations}data:\n  color: blue\n`;
}

/**
 * docs/drift.md seen from outside: `app` (a Deployment, a ConfigMap, a ConfigMap annotated
 * `kaddon.dev/drift: ignore`) and `scaled` (a Deployment whose replicas module.yaml ignores), checked
 * every 2 s.
 */
before(async () => {
  env = await startOperatorEnvironment({ namespace: NAMESPACE, prefix: 'operator-drift' });
  env.tree.write('modules', {
    'values.yaml': 'appEnabled: true\nscaledEnabled: true\n',
    '010-app/kustomization.yaml': `namespace: ${NAMESPACE}\nresources: [web.yaml, settings.yaml, pinned.yaml]\n`,
    '010-app/web.yaml': deployment('web', 2, 'web:1'),
    '010-app/settings.yaml': configMap('settings'),
    '010-app/pinned.yaml': configMap('pinned', '  annotations: {kaddon.dev/drift: ignore}\n'),
    '020-scaled/kustomization.yaml': `namespace: ${NAMESPACE}\nresources: [scaled.yaml]\n`,
    '020-scaled/scaled.yaml': deployment('scaled', 1, 'scaled:1'),
    '020-scaled/module.yaml':
      'drift:\n  ignore:\n  - paths: ["/spec/replicas"]\n    target: {kind: Deployment}\n',
  });
  operator = env.startOperator({ forceKillAfterDelay: 10_000, extraEnv: { KADDON_DRIFT_INTERVAL: '2s' } });
  await waitReady(operator, env.port);
});
after(() => env.stop());

async function get(path: string): Promise<JsonObject | undefined> {
  return env.api.request('GET', path).catch(() => undefined);
}

function merge(path: string, body: JsonObject): Promise<JsonObject> {
  return env.api.request('PATCH', path, { body, contentType: 'application/merge-patch+json' });
}

/** What `kubectl set image` sends: a strategic merge of one container by name. */
function setImage(name: string, image: string): Promise<JsonObject> {
  return env.api.request('PATCH', `${DEPLOYMENTS}/${name}`, {
    body: { spec: { template: { spec: { containers: [{ name: 'main', image }] } } } },
    contentType: 'application/strategic-merge-patch+json',
  });
}

function replicas(object: JsonObject | undefined): unknown {
  return isJsonObject(object?.spec) ? object.spec.replicas : undefined;
}

function image(object: JsonObject | undefined): unknown {
  const spec =
    isJsonObject(object?.spec) && isJsonObject(object.spec.template) ? object.spec.template.spec : undefined;
  return isJsonObject(spec) && Array.isArray(spec.containers) && isJsonObject(spec.containers[0])
    ? spec.containers[0].image
    : undefined;
}

function label(object: JsonObject | undefined): unknown {
  return isJsonObject(object?.metadata) && isJsonObject(object.metadata.labels)
    ? object.metadata.labels.tier
    : undefined;
}

function data(object: JsonObject | undefined): unknown {
  return isJsonObject(object?.data) ? object.data.color : undefined;
}

async function driftEvents(module: string, reason: string): Promise<string[]> {
  const list = await env.api.request('GET', '/apis/events.k8s.io/v1/namespaces/default/events');
  return (Array.isArray(list.items) ? list.items.filter(isJsonObject) : [])
    .filter((event) => event.reason === reason)
    .filter((event) => isJsonObject(event.regarding) && event.regarding.name === module)
    .map((event) => (typeof event.note === 'string' ? event.note : ''));
}

/** Two checks' worth of time and a little more: what must be left alone is still as edited then. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 6_000));

describe('drift (KADDON_DRIFT_MODE=correct, the default)', () => {
  it('puts a scaled Deployment, an edited label and a deleted ConfigMap back, without a Helm revision', async () => {
    const revisions = (await env.helm.history('app', NAMESPACE)).length;
    await merge(`${DEPLOYMENTS}/web/scale`, { spec: { replicas: 5 } });
    await merge(`${DEPLOYMENTS}/web`, { metadata: { labels: { tier: 'hacked' } } });
    await env.api.request('DELETE', `${CONFIGMAPS}/settings`);
    await eventually(
      operator,
      'web, its label and settings back as delivered',
      async () => {
        const web = await get(`${DEPLOYMENTS}/web`);
        const settings = await get(`${CONFIGMAPS}/settings`);
        return replicas(web) === 2 && label(web) === 'web' && data(settings) === 'blue' ? true : undefined;
      },
      30_000,
    );
    assert.equal((await env.helm.history('app', NAMESPACE)).length, revisions, 'no new Helm revision');
    const notes = await eventually(operator, 'a DriftCorrected Event of module app', async () => {
      const found = await driftEvents('app', 'DriftCorrected');
      return found.length > 0 ? found.join('\n') : undefined;
    });
    assert.match(notes, /Deployment kaddon-drift\/web/);
    const metrics = await scrapeMetrics(env.port);
    assert.ok(
      (sample(metrics, 'addon_operator_module_drift_corrections_total', { module: 'app' }) ?? 0) >= 2,
    );
    assert.equal(sample(metrics, 'addon_operator_module_drifted_objects', { module: 'scaled' }), 0);
  });

  it('leaves ignored replicas and an annotated object as edited, and reverts an image edit', async () => {
    await merge(`${DEPLOYMENTS}/scaled/scale`, { spec: { replicas: 4 } });
    await merge(`${CONFIGMAPS}/pinned`, { data: { color: 'red' } });
    await setImage('scaled', 'scaled:evil');
    await eventually(
      operator,
      'the image of scaled reverted',
      async () => (image(await get(`${DEPLOYMENTS}/scaled`)) === 'scaled:1' ? true : undefined),
      30_000,
    );
    await settle();
    assert.equal(replicas(await get(`${DEPLOYMENTS}/scaled`)), 4);
    assert.equal(data(await get(`${CONFIGMAPS}/pinned`)), 'red');
  });

  it('in warn mode reports drift and leaves it', async () => {
    await killOperatorTree(operator);
    operator = env.startOperator({
      forceKillAfterDelay: 10_000,
      extraEnv: { KADDON_DRIFT_INTERVAL: '2s', KADDON_DRIFT_MODE: 'warn' },
    });
    await waitReady(operator, env.port);
    await setImage('web', 'web:evil');
    await eventually(
      operator,
      'a DriftDetected Event of module app',
      async () => {
        const found = await driftEvents('app', 'DriftDetected');
        return found.some((note) => note.includes('Deployment kaddon-drift/web')) ? true : undefined;
      },
      30_000,
    );
    await settle();
    assert.equal(image(await get(`${DEPLOYMENTS}/web`)), 'web:evil');
    const metrics = await scrapeMetrics(env.port);
    assert.equal(sample(metrics, 'addon_operator_module_drifted_objects', { module: 'app' }), 1);
    assert.match(operator.output(), /KADDON_DRIFT_MODE=warn: left as they are/);
  });
});
