import assert from 'node:assert/strict';
import { chmod, cp, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isJsonObject, type JsonObject } from '../../src/core/json.ts';
import { parseAllDocuments } from 'yaml';
import { repoRoot } from '../repo-root.ts';
import { runCli } from '../run-cli.ts';
import {
  eventually,
  startOperatorEnvironment,
  waitReady,
  type E2eOperator,
  type OperatorEnvironment,
} from './operator-e2e-kit.ts';

const NAMESPACE = 'kaddon-in-cluster';
const ACCOUNT = 'kaddon';
const WATCH_LABEL = 'e2e.kaddon.dev/count-me';
let env: OperatorEnvironment;
let accountDir: string;
/** The token the operator starts with. */
let firstToken: string;

/**
 * The in-cluster path (docs/lifecycle.md "Helm delivery", README "Install in a cluster"): no
 * kubeconfig, the service account's token, CA and namespace in the directory a Pod has them
 * (under KADDON_IN_CLUSTER_ROOT), KUBERNETES_SERVICE_HOST/PORT naming the API server.
 */
before(async () => {
  env = await startOperatorEnvironment({ namespace: NAMESPACE, prefix: 'operator-in-cluster' });
  const modules = path.join(env.tree.root, 'modules');
  await cp(path.join(repoRoot, 'examples/platform/modules'), modules, { recursive: true });
  await writeCounterModule(path.join(modules, '070-counter'));
  await env.api.request('POST', `/api/v1/namespaces/${NAMESPACE}/serviceaccounts`, {
    body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: ACCOUNT } },
  });
  await grantServiceAccount(modules);
  accountDir = path.join(env.tree.root, 'pod/var/run/secrets/kubernetes.io/serviceaccount');
  await mkdir(accountDir, { recursive: true });
  await writeFile(path.join(accountDir, 'ca.crt'), env.cluster.caPem);
  await writeFile(path.join(accountDir, 'namespace'), NAMESPACE);
  firstToken = await mintToken('token-1');
  await writeFile(path.join(accountDir, 'token'), firstToken);
});
after(() => env.stop());

/** The operator's RBAC: what `kaddon rbac` prints for the tree (docs/rbac.md), nothing more. */
async function grantServiceAccount(modules: string): Promise<void> {
  const run = await runCli(['rbac', modules, '--namespace', NAMESPACE, '--service-account', ACCOUNT]);
  assert.equal(run.code, 0, run.stderr);
  const collections: Record<string, string> = {
    ClusterRole: 'clusterroles',
    ClusterRoleBinding: 'clusterrolebindings',
    Role: 'roles',
    RoleBinding: 'rolebindings',
  };
  for (const document of parseAllDocuments(run.stdout)) {
    const object = document.toJS() as JsonObject;
    const metadata = isJsonObject(object.metadata) ? object.metadata : {};
    const scope = typeof metadata.namespace === 'string' ? `/namespaces/${metadata.namespace}` : '';
    const collection = typeof object.kind === 'string' ? collections[object.kind] : undefined;
    assert.ok(collection, `an RBAC object: ${JSON.stringify(object)}`);
    await env.api.request('POST', `/apis/rbac.authorization.k8s.io/v1${scope}/${collection}`, {
      body: object,
    });
  }
}

/**
 * A token for the service account bound to a Secret of its own: deleting the Secret revokes the
 * token, as a rotated-out projected token stops being valid.
 */
async function mintToken(secret: string): Promise<string> {
  const created = await env.api.request('POST', `/api/v1/namespaces/${NAMESPACE}/secrets`, {
    body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: secret } },
  });
  const uid = isJsonObject(created.metadata) ? created.metadata.uid : undefined;
  const minted = await env.api.request(
    'POST',
    `/api/v1/namespaces/${NAMESPACE}/serviceaccounts/${ACCOUNT}/token`,
    {
      body: {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: {
          expirationSeconds: 3600,
          boundObjectRef: { apiVersion: 'v1', kind: 'Secret', name: secret, uid },
        },
      },
    },
  );
  const status = isJsonObject(minted.status) ? minted.status : {};
  assert.ok(typeof status.token === 'string', 'TokenRequest gave a token');
  return status.token;
}

/** Whether the API server still accepts `token` (TokenReview, asked as the admin). */
async function accepted(token: string): Promise<boolean> {
  const review = await env.api.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
  });
  return isJsonObject(review.status) && review.status.authenticated === true;
}

/**
 * A module whose hook counts labelled ConfigMaps (kubernetes binding: kaddon's watch), writes the
 * count into `counter.count` (delivered by helm in ConfigMap counter-state) and into ConfigMap
 * counter-report through $KUBERNETES_PATCH_PATH (kaddon's own requests).
 */
async function writeCounterModule(dir: string): Promise<void> {
  await mkdir(path.join(dir, 'hooks'), { recursive: true });
  await writeFile(path.join(dir, 'values.yaml'), 'counterEnabled: true\ncounter:\n  count: -1\n');
  await writeFile(
    path.join(dir, 'kustomization.yaml'),
    `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: ${NAMESPACE}\nresources:\n- state.yaml\n`,
  );
  await writeFile(
    path.join(dir, 'state.yaml'),
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: counter-state\ndata:\n  count: "$(counter.count)"\n',
  );
  const config = {
    configVersion: 'v1',
    kubernetes: [
      {
        name: 'counted',
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: { nameSelector: { matchNames: [NAMESPACE] } },
        labelSelector: { matchLabels: { [WATCH_LABEL]: 'yes' } },
        includeSnapshotsFrom: ['counted'],
        jqFilter: '.metadata.name',
      },
    ],
  };
  const hook = `#!/usr/bin/env node
import { readFileSync, writeFileSync } from 'node:fs';
if (process.argv[2] === '--config') {
  console.log(${JSON.stringify(JSON.stringify(config))});
  process.exit(0);
}
const contexts = JSON.parse(readFileSync(process.env.BINDING_CONTEXT_PATH, 'utf8'));
const count = contexts.at(-1).snapshots.counted.length;
writeFileSync(process.env.VALUES_JSON_PATCH_PATH, JSON.stringify([{ op: 'add', path: '/counter/count', value: count }]));
const report = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'counter-report', namespace: ${JSON.stringify(NAMESPACE)} }, data: { count: String(count) } };
writeFileSync(process.env.KUBERNETES_PATCH_PATH, JSON.stringify({ operation: 'CreateOrUpdate', object: report }) + '\\n');
`;
  await writeFile(path.join(dir, 'hooks/count.mjs'), hook);
  await chmod(path.join(dir, 'hooks/count.mjs'), 0o755);
}

async function configMapData(name: string): Promise<JsonObject | undefined> {
  const found = await env.api.request('GET', `/api/v1/namespaces/${NAMESPACE}/configmaps/${name}`);
  return isJsonObject(found.data) ? found.data : undefined;
}

async function countIs(operator: E2eOperator, count: number): Promise<void> {
  const expected = String(count);
  await eventually(operator, `counter-report says ${expected}`, async () =>
    (await configMapData('counter-report'))?.count === expected ? true : undefined,
  );
  await eventually(operator, `counter-state (helm) says ${expected}`, async () =>
    (await configMapData('counter-state'))?.count === expected ? true : undefined,
  );
}

async function labelledConfigMap(name: string): Promise<void> {
  await env.api.request('POST', `/api/v1/namespaces/${NAMESPACE}/configmaps`, {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { [WATCH_LABEL]: 'yes' } } },
  });
}

function withoutTimes(log: string): string {
  return log.replace(/^time=\S+ /gmu, '');
}

/** No kubeconfig: the service account's files and the API server's address, as in a Pod. */
function inClusterEnv(): Record<string, string> {
  const url = new URL(env.cluster.server);
  return {
    KUBECONFIG: '',
    KUBERNETES_SERVICE_HOST: url.hostname,
    KUBERNETES_SERVICE_PORT: url.port,
    KADDON_IN_CLUSTER_ROOT: path.join(env.tree.root, 'pod'),
  };
}

describe('kaddon operator through the in-cluster service account', () => {
  it('converges, and keeps working when the token file is replaced and the old token revoked', async () => {
    const operator = env.startOperator({ forceKillAfterDelay: 30_000, extraEnv: inClusterEnv() });
    await waitReady(operator, env.port);
    await countIs(operator, 0);
    const releases = await env.helm.list(NAMESPACE);
    assert.ok(releases.includes('echo-server') && releases.includes('counter'), releases.join(', '));

    // The kubelet's rotation: a new token file swapped in, then the old token stops being valid.
    const staged = path.join(accountDir, '..token.new');
    await writeFile(staged, await mintToken('token-2'));
    await rename(staged, path.join(accountDir, 'token'));
    await env.api.request('DELETE', `/api/v1/namespaces/${NAMESPACE}/secrets/token-1`);
    await eventually(operator, 'the old token revoked', async () =>
      (await accepted(firstToken)) ? undefined : true,
    );
    const switchedAt = operator.output().length;

    await labelledConfigMap('counted-one');
    await countIs(operator, 1);
    await labelledConfigMap('counted-two');
    await countIs(operator, 2);
    // Status codes are matched as words in lines without their timestamps: a time such as
    // 15:32:36.403Z holds a "403".
    const after = withoutTimes(operator.output().slice(switchedAt));
    assert.doesNotMatch(after, /\b401\b|Unauthorized/, after);
    const whole = withoutTimes(operator.output());
    assert.doesNotMatch(whole, /\b403\b|Forbidden/, whole);
    // Overlapping deliveries wait for the release that creates their namespace (nightly-report in echo).
    assert.doesNotMatch(operator.output(), /delivery of module \S+ failed/u);

    // A module added after the RBAC was printed delivers a kind it does not grant: its run fails
    // with the API server's message, which names the resource and the verb.
    operator.process.kill('SIGTERM');
    await operator.process;
    env.tree.write('modules/990-quota', {
      'kustomization.yaml': `resources:\n- quota.yaml\nnamespace: ${NAMESPACE}\n`,
      'quota.yaml':
        'apiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: pods\nspec:\n  hard:\n    pods: "50"\n',
    });
    env.tree.write('modules', {
      'values.yaml': `${await readFile(path.join(env.tree.root, 'modules/values.yaml'), 'utf8')}quotaEnabled: true\n`,
    });
    const again = env.startOperator({ forceKillAfterDelay: 30_000, extraEnv: inClusterEnv() });
    const refused = await eventually(again, 'the quota module refused', () =>
      Promise.resolve(/cannot (get|create|patch) resource \\?"resourcequotas\\?"/u.exec(again.output())?.[0]),
    );
    assert.match(again.output(), /module=quota/u, refused);
  });
});
