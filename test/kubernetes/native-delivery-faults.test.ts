import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { execa } from 'execa';
import { errorMessage } from '../../src/core/errors.ts';
import { isJsonObject, scalarText, type JsonObject } from '../../src/core/json.ts';
import { deliverModule } from '../../src/delivery/helm/deliver-module.ts';
import type { DeliveryEngine } from '../../src/delivery/native/release-engine.ts';
import { withStatus } from '../../src/delivery/native/release-record.ts';
import { ReleaseRecords } from '../../src/delivery/native/release-records.ts';
import type { ReleaseState } from '../../src/delivery/helm/helm-client.ts';
import { crdYaml } from './crd-yaml.ts';
import {
  comparable,
  configMaps,
  helmHistory,
  helmPath,
  RELEASE_NS,
  side,
  startSides,
  stopSides,
} from './native-equivalence-kit.ts';

/**
 * Slices that go wrong go wrong the same way with both engines (docs/delivery.md "Tests"): each
 * scenario runs on the helm binary's cluster and on the native engine's, and what a user sees is
 * compared: whether the delivery failed and which object its message names, `helm history`, the
 * live objects, and that the next good delivery ends `deployed` with both.
 */

const ENGINES = ['helm', 'native'] as const;

before(startSides);
after(stopSides);

/** What one delivery showed: its outcome, or the error's message. */
interface Delivered {
  readonly outcome: string;
  readonly message: string;
}

/** A release named after its namespace, in a namespace of its own, on both clusters. */
class Scenario {
  readonly release: string;
  /** Collections listed for the live view, e.g. `/api/v1/namespaces/<ns>/configmaps`. */
  readonly collections: string[];

  constructor(release: string, collections: readonly string[] = ['configmaps']) {
    this.release = release;
    this.collections = collections.map((plural) => collectionPath(plural, release));
  }

  async createNamespace(): Promise<void> {
    for (const engine of ENGINES)
      await side(engine).api.request('POST', '/api/v1/namespaces', {
        body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: this.release } },
      });
  }

  /** The slice delivered with each engine, and what each delivery showed. */
  async deliver(manifest: string): Promise<Record<DeliveryEngine, Delivered>> {
    const shown = {} as Record<DeliveryEngine, Delivered>;
    for (const engine of ENGINES) {
      try {
        const result = await deliverModule(
          { module: this.release, namespace: RELEASE_NS, manifest },
          { helm: side(engine).engine, timeoutSeconds: 60 },
        );
        shown[engine] = { outcome: result.outcome, message: '' };
      } catch (error: unknown) {
        shown[engine] = { outcome: 'failed', message: errorMessage(error) };
      }
    }
    return shown;
  }

  /**
   * Delivers and checks the two engines agree on the outcome; a failure's message must name the
   * object (`names`) with both. Returns the outcome.
   */
  async deliverAlike(manifest: string, names?: RegExp): Promise<string> {
    const shown = await this.deliver(manifest);
    assert.equal(shown.native.outcome, shown.helm.outcome, JSON.stringify(shown));
    if (shown.helm.outcome === 'failed') {
      assert.ok(names, `unexpected failure: ${JSON.stringify(shown)}`);
      for (const engine of ENGINES) assert.match(shown[engine].message, names, engine);
    }
    return shown.helm.outcome;
  }

  /**
   * `helm history` of the release, alike with both engines: revision, status and the description
   * up to its first colon (the engines word a failure's cause differently; `names` must be in it
   * with both). Returns helm's rows.
   */
  async historyAlike(names?: RegExp): Promise<(string | number)[][]> {
    const rows = {} as Record<DeliveryEngine, (string | number)[][]>;
    for (const engine of ENGINES) {
      const history = await releaseHistory(engine, this.release);
      rows[engine] = history.map((row) => [
        Number(row.revision),
        scalarText(row.status),
        scalarText(row.description).split(': ')[0] ?? '',
      ]);
      for (const row of history)
        if (row.status === 'failed' && names) assert.match(scalarText(row.description), names, engine);
    }
    assert.deepEqual(rows.native, rows.helm);
    return rows.helm;
  }

  /** The live objects of the scenario's collections, alike on both clusters. Returns their names. */
  async liveAlike(): Promise<string[]> {
    const [helmObjects, nativeObjects] = [await this.#live('helm'), await this.#live('native')];
    assert.deepEqual(nativeObjects, helmObjects);
    return helmObjects.map((object) => {
      const metadata = object.metadata as JsonObject;
      return `${scalarText(object.kind)}/${scalarText(metadata.name)}`;
    });
  }

  /** The manifest each engine's release holds now, alike. */
  async manifestAlike(): Promise<string> {
    const helm = await side('helm').helm.getManifest(this.release, RELEASE_NS);
    assert.equal(await side('native').helm.getManifest(this.release, RELEASE_NS), helm);
    return helm;
  }

  async #live(engine: DeliveryEngine): Promise<JsonObject[]> {
    const objects: JsonObject[] = [];
    for (const collection of this.collections) {
      let list: JsonObject;
      try {
        list = await side(engine).api.request('GET', collection);
      } catch {
        continue; // a kind not served on this cluster (yet)
      }
      const kind = scalarText(list.kind).replace(/List$/u, '');
      for (const item of Array.isArray(list.items) ? list.items.filter(isJsonObject) : []) {
        const name = scalarText((item.metadata as JsonObject).name);
        if (name !== 'kube-root-ca.crt') objects.push(comparable({ ...item, kind }));
      }
    }
    return objects;
  }
}

function collectionPath(plural: string, namespace: string): string {
  const groups: Record<string, string> = {
    configmaps: '/api/v1',
    services: '/api/v1',
    deployments: '/apis/apps/v1',
    widgets: '/apis/faults.kaddon.test/v1',
  };
  return `${groups[plural] ?? '/api/v1'}/namespaces/${namespace}/${plural}`;
}

/** `helm history`, empty when helm knows no release of that name. */
async function releaseHistory(engine: DeliveryEngine, release: string): Promise<JsonObject[]> {
  try {
    return await helmHistory(engine, release);
  } catch (error: unknown) {
    if (/release: not found/u.test(errorMessage(error))) return [];
    throw error;
  }
}

function service(namespace: string, name: string, ports: boolean): string {
  const spec = ports
    ? 'spec:\n  ports:\n  - port: 80\n  selector:\n    app: web\n'
    : 'spec:\n  selector:\n    app: web\n';
  return `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\n${spec}`;
}

function deployment(namespace: string, name: string, image: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: ${namespace}
spec:
  selector:
    matchLabels:
      app: ${name}
  template:
    metadata:
      labels:
        app: ${name}
    spec:
      containers:
      - image: ${image}
        name: main
`;
}

/** A Deployment the API server rejects: no selector, no containers. */
function brokenDeployment(namespace: string, name: string): string {
  return `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\nspec:\n  template:\n    spec: {}\n`;
}

const slice = (...documents: string[]): string => documents.join('---\n');

/** The real helm binary run by hand on an engine's cluster, as a user would. */
async function runHelm(engine: DeliveryEngine, args: readonly string[]): Promise<void> {
  await execa(helmPath(), [...args, '--namespace', RELEASE_NS], {
    env: { KUBECONFIG: side(engine).cluster.kubeconfigPath, HELM_NO_PLUGINS: '1' },
  });
}

/**
 * The release's newest revision left in `status`, as a helm or an operator killed during its
 * write leaves it (docs/lifecycle.md "Helm delivery": Stuck releases).
 */
async function leaveNewestIn(
  engine: DeliveryEngine,
  release: string,
  status: ReleaseState,
  description: string,
): Promise<void> {
  const records = new ReleaseRecords(side(engine).api);
  const newest = (await records.history(release, RELEASE_NS)).at(-1);
  assert.ok(newest, `${engine}: release ${release} has a revision`);
  await records.update(withStatus(newest, status, description), new Date());
}

/**
 * ConfigMaps whose data is drawn (seeded, so the sizes are the same on every run) from letters,
 * digits and many `<`, `>`, `&`: helm's JSON writes each of those as a six-character escape, so
 * helm's release record is much larger than the slice's YAML.
 */
function escapedConfigMaps(namespace: string, length: number): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<>&<>&<>&<>&';
  let seed = 44;
  const next = (): number => {
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
    return seed >>> 8;
  };
  return ['b0', 'b1', 'b2']
    .map((name) => {
      let text = '';
      for (let i = 0; i < length; i += 1) text += alphabet[next() % alphabet.length] ?? '';
      return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\ndata:\n  x: "${text}"\n`;
    })
    .join('---\n');
}

describe('native delivery of failing slices against the real helm 4 binary', () => {
  it('fails on an object the API server rejects, on install and on upgrade, as helm does', async () => {
    const s = new Scenario('rejected', ['configmaps', 'services', 'deployments']);
    await s.createNamespace();
    const ns = s.release;
    // Install: the Service in the middle (helm's order: ConfigMap, Service, Deployment) is invalid.
    const rejectedService = /Service.*"?web"?|web.*Service|spec\.ports/u;
    assert.equal(
      await s.deliverAlike(
        slice(configMaps(ns, ['before']), service(ns, 'web', false), deployment(ns, 'web', 'nginx:1')),
        rejectedService,
      ),
      'failed',
    );
    await s.historyAlike(rejectedService);
    await s.liveAlike();
    const good = (image: string, value: string): string =>
      slice(configMaps(ns, ['before'], value), service(ns, 'web', true), deployment(ns, 'web', image));
    assert.equal(await s.deliverAlike(good('nginx:1', '1')), 'upgraded');
    // Upgrade: an object the release holds becomes invalid.
    assert.equal(
      await s.deliverAlike(
        slice(configMaps(ns, ['before'], '2'), service(ns, 'web', false), deployment(ns, 'web', 'nginx:2')),
        rejectedService,
      ),
      'failed',
    );
    await s.historyAlike(rejectedService);
    await s.liveAlike();
    // Upgrade: a new object is invalid.
    const rejectedDeployment = /broken/u;
    assert.equal(
      await s.deliverAlike(slice(good('nginx:3', '3'), brokenDeployment(ns, 'a-broken')), rejectedDeployment),
      'failed',
    );
    await s.historyAlike(/broken|web/u);
    await s.liveAlike();
    assert.equal(await s.deliverAlike(good('nginx:4', '4')), 'upgraded');
    const rows = await s.historyAlike(/web|broken/u);
    assert.equal(rows.at(-1)?.[1], 'deployed');
    await s.liveAlike();
    await s.manifestAlike();
  });

  it('fails on an object in a namespace that does not exist, as helm does', async () => {
    const s = new Scenario('nowhere');
    await s.createNamespace();
    const missing = /absent/u;
    assert.equal(
      await s.deliverAlike(slice(configMaps('absent', ['lost']), configMaps(s.release, ['a'])), missing),
      'failed',
    );
    await s.historyAlike(missing);
    assert.deepEqual(await s.liveAlike(), ['ConfigMap/a']);
    assert.equal(await s.deliverAlike(configMaps(s.release, ['a'])), 'upgraded');
    assert.equal((await s.historyAlike(missing)).at(-1)?.[1], 'deployed');
    await s.liveAlike();
  });

  it('fails on a kind the server does not serve, and on a CRD with its resource in one slice, as helm does', async () => {
    const s = new Scenario('unserved', ['configmaps', 'widgets']);
    await s.createNamespace();
    const ns = s.release;
    const crd = crdYaml('faults.kaddon.test', 'widgets', 'Widget', { app: 'faults' });
    const widget = `apiVersion: faults.kaddon.test/v1\nkind: Widget\nmetadata:\n  name: w\n  namespace: ${ns}\nspec:\n  size: 1\n`;
    const unserved = /Widget/u;
    assert.equal(await s.deliverAlike(slice(configMaps(ns, ['a']), widget), unserved), 'failed');
    assert.deepEqual(await s.historyAlike(unserved), []);
    assert.deepEqual(await s.liveAlike(), []);
    // The CRD and its resource in one slice: helm maps every object before it sends the first, so
    // the resource fails although its CRD comes first in helm's order, and no revision is recorded.
    assert.equal(await s.deliverAlike(slice(widget, crd, configMaps(ns, ['a'])), unserved), 'failed');
    assert.deepEqual(await s.historyAlike(unserved), []);
    assert.deepEqual(await s.liveAlike(), []);
    // The CRD delivered first (as addon-operator installs a module's crds/), then the resource.
    assert.equal(await s.deliverAlike(slice(crd, configMaps(ns, ['a']))), 'installed');
    assert.equal(await s.deliverAlike(slice(widget, crd, configMaps(ns, ['a']))), 'upgraded');
    assert.equal((await s.historyAlike(unserved)).at(-1)?.[1], 'deployed');
    assert.deepEqual(await s.liveAlike(), ['ConfigMap/a', 'Widget/w']);
    await s.manifestAlike();
  });

  it('keeps an object marked resource-policy keep that the next revision drops, as helm does', async () => {
    const s = new Scenario('keep');
    await s.createNamespace();
    const ns = s.release;
    const kept = configMaps(ns, ['kept']).replace(
      'metadata:\n',
      'metadata:\n  annotations:\n    helm.sh/resource-policy: keep\n',
    );
    assert.equal(await s.deliverAlike(slice(kept, configMaps(ns, ['a']))), 'installed');
    assert.equal(await s.deliverAlike(configMaps(ns, ['a'], '2')), 'upgraded');
    assert.deepEqual(await s.historyAlike(), [
      [1, 'superseded', 'Install complete'],
      [2, 'deployed', 'Upgrade complete'],
    ]);
    assert.deepEqual(await s.liveAlike(), ['ConfigMap/a', 'ConfigMap/kept']);
    assert.doesNotMatch(await s.manifestAlike(), /kept/u);
  });

  it('fails a release over the Secret size limit with nothing recorded or applied, as helm does', async () => {
    const s = new Scenario('oversize');
    await s.createNamespace();
    const ns = s.release;
    // Incompressible data: three ConfigMaps under 1 MiB each, their release record over it.
    const big = ['b1', 'b2', 'b3']
      .map(
        (name) =>
          `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${ns}\ndata:\n  x: ${randomBytes(225_000).toString('base64')}\n`,
      )
      .join('---\n');
    const tooLong = /oversize|[Tt]oo long|exceed/u;
    assert.equal(await s.deliverAlike(big, tooLong), 'failed');
    assert.deepEqual(await s.historyAlike(), []);
    assert.deepEqual(await s.liveAlike(), []);
    assert.equal(await s.deliverAlike(configMaps(ns, ['a'])), 'installed');
    assert.equal(await s.deliverAlike(slice(configMaps(ns, ['a']), big), tooLong), 'failed');
    assert.deepEqual(await s.historyAlike(), [[1, 'deployed', 'Install complete']]);
    assert.deepEqual(await s.liveAlike(), ['ConfigMap/a']);
    assert.equal(await s.deliverAlike(configMaps(ns, ['a'], '2')), 'upgraded');
    assert.equal((await s.historyAlike()).at(-1)?.[1], 'deployed');
  });

  it('adopts an object that exists without helm ownership, or fails on its fields, as helm with --take-ownership does', async () => {
    const s = new Scenario('foreign');
    await s.createNamespace();
    const ns = s.release;
    // Created outside helm: `bare` holds no field the release sets, `held` holds data.x.
    for (const engine of ENGINES)
      for (const [name, data] of [
        ['bare', undefined],
        ['held', { x: 'theirs' }],
      ] as const)
        await side(engine).api.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
          query: { fieldManager: 'kubectl-create' },
          body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, ...(data ? { data } : {}) },
        });
    // kaddon runs helm with --take-ownership (as addon-operator): no "invalid ownership metadata".
    assert.equal(await s.deliverAlike(configMaps(ns, ['bare'])), 'installed');
    await s.historyAlike();
    await s.liveAlike();
    // A field another manager holds with another value is a conflict: helm does not force.
    const conflict = /held/u;
    assert.equal(await s.deliverAlike(configMaps(ns, ['bare', 'held']), conflict), 'failed');
    await s.historyAlike(conflict);
    await s.liveAlike();
    assert.equal(await s.deliverAlike(configMaps(ns, ['bare'], '2')), 'upgraded');
    assert.equal((await s.historyAlike(conflict)).at(-1)?.[1], 'deployed');
    await s.liveAlike();
  });

  it('delivers a slice that becomes empty on upgrade as helm does', async () => {
    const s = new Scenario('emptied');
    await s.createNamespace();
    assert.equal(await s.deliverAlike(configMaps(s.release, ['a', 'b'])), 'installed');
    assert.equal(await s.deliverAlike(''), 'upgraded');
    assert.deepEqual(await s.historyAlike(), [
      [1, 'superseded', 'Install complete'],
      [2, 'deployed', 'Upgrade complete'],
    ]);
    assert.deepEqual(await s.liveAlike(), []);
    assert.equal(await s.manifestAlike(), '\n');
    assert.equal(await s.deliverAlike(configMaps(s.release, ['a'])), 'upgraded');
    assert.deepEqual(await s.liveAlike(), ['ConfigMap/a']);
  });
  it('reinstalls a release uninstalled with --keep-history as helm does: the old revision superseded', async () => {
    const s = new Scenario('kept-history');
    await s.createNamespace();
    const ns = s.release;
    assert.equal(await s.deliverAlike(configMaps(ns, ['a', 'b'])), 'installed');
    for (const engine of ENGINES) await runHelm(engine, ['uninstall', s.release, '--keep-history']);
    assert.deepEqual(await s.historyAlike(), [[1, 'uninstalled', 'Uninstallation complete']]);
    assert.deepEqual(await s.liveAlike(), []);
    assert.equal(await s.deliverAlike(configMaps(ns, ['a'], '2')), 'upgraded');
    assert.deepEqual(await s.historyAlike(), [
      [1, 'superseded', 'superseded by new release'],
      [2, 'deployed', 'Install complete'],
    ]);
    assert.deepEqual(await s.liveAlike(), ['ConfigMap/a']);
    assert.equal(await s.deliverAlike(configMaps(ns, ['a'], '3')), 'upgraded');
    assert.deepEqual(
      (await s.historyAlike()).map((row) => row[1]),
      ['superseded', 'superseded', 'deployed'],
    );
    await s.manifestAlike();
  });

  it('recovers a revision left pending-upgrade by a killed writer with the history helm gives', async () => {
    const s = new Scenario('stuck-upgrade');
    await s.createNamespace();
    const ns = s.release;
    assert.equal(await s.deliverAlike(configMaps(ns, ['a'])), 'installed');
    // The killed upgrade had applied `b` before its writer died.
    assert.equal(await s.deliverAlike(configMaps(ns, ['a', 'b'], '2')), 'upgraded');
    for (const engine of ENGINES)
      await leaveNewestIn(engine, s.release, 'pending-upgrade', 'Preparing upgrade');
    assert.equal(await s.deliverAlike(configMaps(ns, ['a', 'c'], '3')), 'recovered');
    assert.deepEqual(await s.historyAlike(), [
      [1, 'superseded', 'Install complete'],
      [2, 'pending-upgrade', 'Preparing upgrade'],
      [3, 'superseded', 'Rollback to 1'],
      [4, 'deployed', 'Upgrade complete'],
    ]);
    assert.deepEqual(await s.liveAlike(), ['ConfigMap/a', 'ConfigMap/c']);
    await s.manifestAlike();
    // A rollback left pending: recovered to the newest revision that is not pending, which holds
    // the slice already.
    for (const engine of ENGINES) await runHelm(engine, ['rollback', s.release, '1']);
    for (const engine of ENGINES) await leaveNewestIn(engine, s.release, 'pending-rollback', 'Rollback to 1');
    assert.equal(await s.deliverAlike(configMaps(ns, ['a', 'c'], '3')), 'unchanged');
    assert.deepEqual((await s.historyAlike()).slice(3), [
      [4, 'superseded', 'Upgrade complete'],
      [5, 'pending-rollback', 'Rollback to 1'],
      [6, 'deployed', 'Rollback to 4'],
    ]);
    assert.deepEqual(await s.liveAlike(), ['ConfigMap/a', 'ConfigMap/c']);
  });

  it('recovers a release left pending-install by a killed writer as helm does', async () => {
    const s = new Scenario('stuck-install');
    await s.createNamespace();
    const ns = s.release;
    assert.equal(await s.deliverAlike(configMaps(ns, ['a', 'b'])), 'installed');
    for (const engine of ENGINES)
      await leaveNewestIn(engine, s.release, 'pending-install', 'Initial install underway');
    assert.equal(await s.deliverAlike(configMaps(ns, ['a'], '2')), 'recovered');
    assert.deepEqual(await s.historyAlike(), [[1, 'deployed', 'Install complete']]);
    assert.deepEqual(await s.liveAlike(), ['ConfigMap/a']);
  });

  it('refuses a release whose record helm could not store, and writes only records helm can roll back to', async () => {
    const s = new Scenario('escaped');
    await s.createNamespace();
    const ns = s.release;
    // Under the limit in helm's record too: both engines install it.
    assert.equal(await s.deliverAlike(escapedConfigMaps(ns, 130_000)), 'installed');
    // Under 1 MiB as kaddon's JSON, over it as helm's (the escapes): helm cannot store it.
    const tooLong = /escaped[^]*1048576/u;
    assert.equal(await s.deliverAlike(escapedConfigMaps(ns, 150_000), tooLong), 'failed');
    assert.deepEqual(await s.historyAlike(), [[1, 'deployed', 'Install complete']]);
    assert.deepEqual(await s.liveAlike(), ['ConfigMap/b0', 'ConfigMap/b1', 'ConfigMap/b2']);
    assert.equal(await s.deliverAlike(configMaps(ns, ['a'])), 'upgraded');
    // helm takes over what each engine wrote: a rollback to the large revision.
    for (const engine of ENGINES) await runHelm(engine, ['rollback', s.release, '1']);
    assert.deepEqual(await s.historyAlike(), [
      [1, 'superseded', 'Install complete'],
      [2, 'superseded', 'Upgrade complete'],
      [3, 'deployed', 'Rollback to 1'],
    ]);
    assert.deepEqual(await s.liveAlike(), ['ConfigMap/b0', 'ConfigMap/b1', 'ConfigMap/b2']);
  });
});
