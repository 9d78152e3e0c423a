import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type { GitStatus } from '../../src/observability/debug/debug-state.ts';
import { runCli } from '../run-cli.ts';
import { makeGitFixture, type GitFixture } from '../sources/git-fixture.ts';
import {
  eventually,
  startOperatorEnvironment,
  waitReady,
  type E2eOperator,
  type OperatorEnvironment,
} from './operator-e2e-kit.ts';

const NAMESPACE = 'kaddon-git-webhook-e2e';
const SECRET = 'e2e-webhook-secret';
/** How long a signed webhook may take to deliver a revision (the poll interval is 10 minutes). */
const DELIVERY_DEADLINE_MS = 8_000;
/** How long a refused webhook is given to (wrongly) cause a fetch. */
const QUIET_MS = 1_500;

let env: OperatorEnvironment;
let repo: GitFixture;
let operator: E2eOperator;

const TREE = (greeting: string): Record<string, string> => ({
  'modules/values.yaml': 'global: {}\nappEnabled: true\n',
  'modules/010-app/values.yaml': `app:\n  greeting: ${greeting}\n`,
  'modules/010-app/kustomization.yaml': `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: ${NAMESPACE}\nresources:\n- configmap.yaml\n`,
  'modules/010-app/configmap.yaml':
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  greeting: $(app.greeting)\n',
});

before(async () => {
  env = await startOperatorEnvironment({ namespace: NAMESPACE, prefix: 'git-webhook-e2e' });
  repo = makeGitFixture('git-webhook');
  repo.write(TREE('hello'));
  repo.commit('initial');
  operator = env.startOperator({
    modulesDir: path.join(env.tree.root, 'not-used'),
    forceKillAfterDelay: 30_000,
    extraEnv: {
      MODULES_GIT_URL: repo.fileUrl,
      MODULES_GIT_SUBPATH: 'modules',
      MODULES_GIT_POLL_INTERVAL: '10m',
      MODULES_GIT_CACHE_DIR: path.join(env.tree.root, 'git-cache'),
      KADDON_GIT_WEBHOOK_SECRET: SECRET,
      LOG_TYPE: 'json',
      LOG_LEVEL: 'debug',
    },
  });
  await waitReady(operator, env.port, 60_000);
});

after(async () => {
  await env.stop();
  repo.remove();
});

async function gitStatus(): Promise<GitStatus> {
  const socket = path.join(env.tree.root, 'debug.socket');
  const run = await runCli(['git', 'status', '-o', 'json', '--debug-unix-socket', socket]);
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout) as GitStatus;
}

/** Syncs the Git source ran on request (the log line each sync after the first one writes). */
function requestedSyncs(): number {
  return operator
    .output()
    .split('\n')
    .filter((line) => line.includes('"git source: synced"') && line.includes('"trigger":"request"')).length;
}

function webhook(headers: Record<string, string>, body: string): Promise<Response> {
  return fetch(`http://127.0.0.1:${String(env.port)}/hooks/git`, { method: 'POST', headers, body });
}

const hmac = (body: string, secret = SECRET): string =>
  createHmac('sha256', secret).update(body).digest('hex');

describe('the Git webhook receiver of kaddon operator', () => {
  it('refuses unsigned and wrongly signed webhooks without fetching', async () => {
    const inUse = (await gitStatus()).revisionInUse;
    repo.write(TREE('bonjour'));
    repo.commit('greeting');
    const body = '{"ref":"refs/heads/main"}';
    assert.equal((await webhook({ 'x-github-event': 'push' }, body)).status, 401);
    assert.equal(
      (await webhook({ 'x-hub-signature-256': `sha256=${hmac(body, 'guess')}` }, body)).status,
      401,
    );
    assert.equal((await webhook({ 'x-gitlab-token': 'guess' }, body)).status, 401);
    await delay(QUIET_MS);
    assert.equal(requestedSyncs(), 0, 'no fetch was made');
    assert.equal((await gitStatus()).revisionInUse, inUse, 'the new commit waits for the poll');
  });

  it('delivers the new revision within seconds of a signed webhook', async () => {
    const head = repo.git('rev-parse', 'HEAD');
    // The payload names another revision on purpose: only Git says what to fetch.
    const body = JSON.stringify({ ref: 'refs/heads/main', after: '0'.repeat(40) });
    const response = await webhook({ 'x-hub-signature-256': `sha256=${hmac(body)}` }, body);
    assert.equal(response.status, 202);
    await eventually(
      operator,
      'the pushed revision in use',
      async () => ((await gitStatus()).revisionInUse === head ? true : undefined),
      DELIVERY_DEADLINE_MS,
    );
    await eventually(
      operator,
      'the release upgraded',
      async () =>
        /greeting: bonjour/u.test(await env.helm.getManifest('app', NAMESPACE)) ? true : undefined,
      DELIVERY_DEADLINE_MS,
    );
  });

  it('coalesces 50 webhooks sent at once into one or two fetches', async () => {
    const before = requestedSyncs();
    const body = '{"ref":"refs/heads/main"}';
    const signatures: Record<string, string>[] = [
      { 'x-hub-signature-256': `sha256=${hmac(body)}` },
      { 'x-gitlab-token': SECRET },
      { 'x-gitea-signature': hmac(body) },
      { 'x-forgejo-signature': hmac(body) },
      { 'x-signature': `sha256=${hmac(body)}` },
    ];
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, index) => webhook(signatures[index % signatures.length]!, body)),
    );
    assert.deepEqual(new Set(responses.map((response) => response.status)), new Set([202]));
    await eventually(operator, 'a requested sync', () =>
      Promise.resolve(requestedSyncs() > before ? true : undefined),
    );
    await delay(QUIET_MS);
    const fetches = requestedSyncs() - before;
    assert.ok(fetches >= 1 && fetches <= 2, `${fetches} syncs for 50 webhooks`);
  });
});
