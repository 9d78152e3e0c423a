import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';
import { isJsonObject, scalarText, type JsonObject } from '../../src/core/json.ts';
import { KubeApiError } from '../../src/delivery/kube-client.ts';
import { MAX_RECORD_BYTES } from '../../src/delivery/native/record-of-secret.ts';
import {
  eventually,
  setOperatorConfig,
  startOperatorEnvironment,
  stateModulesTree,
  waitReady,
  type E2eOperator,
  type OperatorEnvironment,
} from './operator-e2e-kit.ts';

/**
 * docs/delivery.md "Release records": records are input. A record that cannot be read, or that
 * disagrees with its Secret, fails its own release only, with a message naming the Secret and
 * never its bytes; the other modules are delivered and `/readyz` turns 200, with either engine;
 * and nothing is deleted on the word of such a record.
 */

const NAMESPACE = 'kaddon-records';
const SECRETS = `/api/v1/namespaces/${NAMESPACE}/secrets`;
/** Marks the bytes of each forged record: they must never reach the log. */
const MARK = 'FORGED-RECORD-BYTES';
let env: OperatorEnvironment;

before(async () => {
  env = await startOperatorEnvironment({ namespace: NAMESPACE, prefix: 'operator-records' });
  const modules = ['alpha', 'beta', 'gamma', 'delta'];
  env.tree.write('', stateModulesTree(NAMESPACE, modules));
});
after(() => env.stop());

function startWith(delivery: 'helm' | 'native'): E2eOperator {
  return env.startOperator({
    forceKillAfterDelay: 30_000,
    // The purge of a release that is no module's is what reads it: no confirmation held.
    extraEnv: { KADDON_DELIVERY: delivery, KADDON_PRUNE_GUARD_PERCENT: '100' },
  });
}

async function stop(operator: E2eOperator): Promise<void> {
  operator.process.kill('SIGTERM');
  await operator.process;
}

async function stateRev(module: string): Promise<unknown> {
  const object = await env.api.request('GET', `/api/v1/namespaces/${NAMESPACE}/configmaps/${module}-state`);
  return isJsonObject(object.data) ? object.data.rev : undefined;
}

async function exists(path: string): Promise<boolean> {
  try {
    await env.api.request('GET', path);
    return true;
  } catch (error: unknown) {
    if (error instanceof KubeApiError && error.status === 404) return false;
    throw error;
  }
}

/** A Secret as helm's storage would hold it: `packed` is what helm base64-encodes. */
async function writeRecord(
  name: string,
  labels: Record<string, string>,
  packed: Buffer | string,
): Promise<void> {
  // A string is the text helm would have base64-encoded the packed record to.
  const text = typeof packed === 'string' ? packed : packed.toString('base64');
  await env.api.request('POST', SECRETS, {
    body: {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, labels: { owner: 'helm', status: 'deployed', ...labels } },
      type: 'helm.sh/release.v1',
      data: { release: Buffer.from(text).toString('base64') },
    },
  });
}

/** The newest record helm's storage holds for `release`, decoded as helm would. */
async function newestRecord(release: string): Promise<{ secret: string; record: JsonObject }> {
  const list = await env.api.request('GET', SECRETS, {
    query: { labelSelector: `owner=helm,name=${release}` },
  });
  const secrets = (Array.isArray(list.items) ? list.items.filter(isJsonObject) : []).map((item) => {
    const data = item.data as { release: string };
    const packed = Buffer.from(Buffer.from(data.release, 'base64').toString('latin1'), 'base64');
    const record = JSON.parse(gunzipSync(packed).toString('utf8')) as JsonObject;
    return { secret: (item.metadata as { name: string }).name, record };
  });
  const newest = secrets.sort((a, b) => Number(a.record.version) - Number(b.record.version)).at(-1);
  assert.ok(newest, `release ${release} has a record`);
  return newest;
}

describe('release records as input', () => {
  it('a bad record fails only its own release, and the others are delivered with either engine', async () => {
    let operator = startWith('native');
    await waitReady(operator, env.port);
    await stop(operator);
    // Each broken another way: the next revision of beta, gamma and delta, and a release that is no module's.
    const { record: beta } = await newestRecord('beta');
    const wrongTypes = { ...beta, version: 2, info: { ...(beta.info as JsonObject), status: 3 } };
    await writeRecord(
      'sh.helm.release.v1.beta.v2',
      { name: 'beta', version: '2' },
      gzipSync(JSON.stringify(wrongTypes)),
    );
    const bomb = gzipSync(Buffer.alloc(MAX_RECORD_BYTES + 1024, ` ${MARK} `));
    await writeRecord('sh.helm.release.v1.gamma.v2', { name: 'gamma', version: '2' }, bomb);
    await writeRecord('sh.helm.release.v1.delta.v2', { name: 'delta', version: '2' }, gzipSync(`{${MARK}`));
    const brokenGzip = Buffer.concat([gzipSync(MARK).subarray(0, 12), Buffer.from(MARK)]);
    await writeRecord('sh.helm.release.v1.stranger.v1', { name: 'stranger', version: '1' }, brokenGzip);
    await writeRecord('sh.helm.release.v1.other.v3', { name: 'other', version: '3' }, `%%${MARK}%%`);

    for (const [delivery, rev] of [
      ['native', '1'],
      ['helm', '2'],
    ] as const) {
      await setOperatorConfig(env.api, NAMESPACE, {
        alpha: `rev: ${rev}\n`,
        beta: `rev: ${rev}\n`,
        gamma: `rev: ${rev}\n`,
        delta: `rev: ${rev}\n`,
      });
      operator = startWith(delivery);
      await waitReady(operator, env.port);
      assert.equal(await stateRev('alpha'), rev, `${delivery}: alpha delivered`);
      const output = operator.output();
      const named = [
        ['beta.v2', /info\.status is not one of/],
        ['gamma.v2', /it unpacks to more than 8 MiB/],
        ['delta.v2', /its release document is not JSON/],
        ['stranger.v1', /its gzip data is broken/],
        ['other.v3', /data\.release is not base64 of base64/],
      ] as const;
      for (const [secret, problem] of named) {
        const line = output.split('\n').find((text) => text.includes(`sh.helm.release.v1.${secret}`));
        assert.ok(line, `${delivery}: the log names ${secret}:\n${operator.tail()}`);
        assert.match(line, problem);
      }
      assert.match(output, /release stranger not purged/);
      assert.match(output, /release other not purged/);
      assert.doesNotMatch(output, new RegExp(MARK), 'no record bytes in the log');
      for (const module of ['beta', 'gamma', 'delta'])
        assert.equal(await stateRev(module), '0', `${delivery}: ${module} left as it was`);
      assert.ok(await exists(`${SECRETS}/sh.helm.release.v1.stranger.v1`), 'the stranger is not purged');
      assert.ok(await exists(`${SECRETS}/sh.helm.release.v1.other.v3`), 'nor the other');
      await stop(operator);
    }

    // The repair the message names: the bad records deleted, the modules are delivered again.
    for (const module of ['beta', 'gamma', 'delta'])
      await env.api.request('DELETE', `${SECRETS}/sh.helm.release.v1.${module}.v2`);
    await env.api.request('DELETE', `${SECRETS}/sh.helm.release.v1.stranger.v1`);
    await env.api.request('DELETE', `${SECRETS}/sh.helm.release.v1.other.v3`);
    operator = startWith('native');
    await waitReady(operator, env.port);
    for (const module of ['beta', 'gamma', 'delta']) assert.equal(await stateRev(module), '2');
    await stop(operator);
  });

  it('never deletes an object on the word of a second claim to a revision, or of labels that disagree', async () => {
    // Runs alone too: the modules are delivered first.
    const installer = startWith('native');
    await waitReady(installer, env.port);
    await stop(installer);
    const victims = ['victim-a', 'victim-b'];
    for (const name of victims)
      await env.api.request('POST', `/api/v1/namespaces/${NAMESPACE}/configmaps`, {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { owner: 'someone else' } },
      });
    const claim = (record: JsonObject, victim: string): Buffer =>
      gzipSync(
        JSON.stringify({
          ...record,
          manifest: `${scalarText(record.manifest)}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${victim}\n  namespace: ${NAMESPACE}\n`,
        }),
      );
    // alpha: a second Secret claims its newest revision. beta: a Secret named and labelled as its
    // next revision, holding an older one.
    const alpha = await newestRecord('alpha');
    const alphaVersion = scalarText(alpha.record.version);
    await writeRecord(
      `${alpha.secret}-copy`,
      { name: 'alpha', version: alphaVersion },
      claim(alpha.record, 'victim-a'),
    );
    const beta = await newestRecord('beta');
    const next = String(Number(beta.record.version) + 1);
    await writeRecord(
      `sh.helm.release.v1.beta.v${next}`,
      { name: 'beta', version: next },
      claim(beta.record, 'victim-b'),
    );

    for (const delivery of ['native', 'helm'] as const) {
      await setOperatorConfig(env.api, NAMESPACE, {
        alpha: `rev: ${delivery}\n`,
        beta: `rev: ${delivery}\n`,
        gamma: `rev: ${delivery}\n`,
      });
      const operator = startWith(delivery);
      await waitReady(operator, env.port);
      assert.equal(await stateRev('gamma'), delivery, `${delivery}: gamma delivered`);
      await eventually(operator, `${delivery}: alpha and beta refused`, () => {
        const output = operator.output();
        return Promise.resolve(
          output.includes(`release record '${NAMESPACE}/${alpha.secret}-copy'`) &&
            output.includes(`release record '${NAMESPACE}/sh.helm.release.v1.beta.v${next}'`)
            ? true
            : undefined,
        );
      });
      assert.match(operator.output(), /kubectl delete secret -n kaddon-records/);
      for (const name of victims)
        assert.ok(
          await exists(`/api/v1/namespaces/${NAMESPACE}/configmaps/${name}`),
          `${delivery}: ${name} kept`,
        );
      assert.notEqual(await stateRev('alpha'), delivery, `${delivery}: alpha not upgraded`);
      await stop(operator);
    }
    await env.api.request('DELETE', `${SECRETS}/${alpha.secret}-copy`);
    await env.api.request('DELETE', `${SECRETS}/sh.helm.release.v1.beta.v${next}`);
    const operator = startWith('native');
    await waitReady(operator, env.port);
    assert.equal(await stateRev('alpha'), 'helm');
    assert.equal(await stateRev('beta'), 'helm');
    for (const name of victims)
      assert.ok(await exists(`/api/v1/namespaces/${NAMESPACE}/configmaps/${name}`), `${name} kept`);
    await stop(operator);
  });
});
