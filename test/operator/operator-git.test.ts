import assert from 'node:assert/strict';
import { chmodSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { GitStatus } from '../../src/observability/debug/debug-state.ts';
import { runCli } from '../run-cli.ts';
import { sample, scrapeMetrics } from './metrics-scrape.ts';
import { makeGitFixture, type GitFixture } from '../sources/git-fixture.ts';
import {
  eventually,
  startOperatorEnvironment,
  waitReady,
  type E2eOperator,
  type OperatorEnvironment,
} from './operator-e2e-kit.ts';

const NAMESPACE = 'kaddon-operator-git-e2e';
const DEADLINE_MS = 40_000;

let env: OperatorEnvironment;
let repo: GitFixture;
let operator: E2eOperator;

/**
 * Two modules in `modules/` of the repository: app's ConfigMap shows its greeting and what its
 * beforeHelm hook wrote; extra has a ConfigMap of its own. With `ticks`, the hook also has a
 * schedule binding every second, each run appending a line to ticks.log.
 */
function appHook(mark: string, ticks?: string): string {
  const config = {
    configVersion: 'v1',
    beforeHelm: 10,
    ...(ticks === undefined ? {} : { schedule: [{ name: 'tick', crontab: '*/1 * * * * *' }] }),
  };
  return `#!/bin/bash
if [ "$1" = "--config" ]; then echo '${JSON.stringify(config)}'; exit 0; fi
if grep -q Schedule "$BINDING_CONTEXT_PATH"; then echo tick >> '${ticks ?? '/dev/null'}'; exit 0; fi
echo '[{"op":"add","path":"/app/fromHook","value":"${mark}"}]' > "$VALUES_JSON_PATCH_PATH"
`;
}

const kustomization = (resource: string): string =>
  `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: ${NAMESPACE}\nresources:\n- ${resource}\n`;

const TREE = {
  'modules/values.yaml': 'global: {}\nappEnabled: true\nextraEnabled: true\n',
  'modules/010-app/values.yaml': 'app:\n  greeting: hello\n  fromHook: none\n',
  'modules/010-app/kustomization.yaml': kustomization('configmap.yaml'),
  'modules/010-app/configmap.yaml':
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  greeting: $(app.greeting)\n  hook: $(app.fromHook)\n',
  'modules/020-extra/kustomization.yaml': kustomization('configmap.yaml'),
  'modules/020-extra/configmap.yaml':
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\ndata:\n  x: "1"\n',
};

before(async () => {
  env = await startOperatorEnvironment({ namespace: NAMESPACE, prefix: 'operator-git-e2e' });
  repo = makeGitFixture('operator-git');
  // The first commit is refused: the operator must wait for a good one, not crash.
  repo.write({
    ...TREE,
    'modules/010-app/hooks/mark.sh': appHook('v1'),
    'modules/020-extra/kustomization.yaml': kustomization('missing.yaml'),
  });
  chmodSync(path.join(repo.git('rev-parse', '--show-toplevel'), 'modules/010-app/hooks/mark.sh'), 0o755);
  repo.commit('broken start');
  operator = env.startOperator({
    modulesDir: path.join(env.tree.root, 'not-used'),
    forceKillAfterDelay: 30_000,
    extraEnv: {
      MODULES_GIT_URL: repo.fileUrl,
      MODULES_GIT_SUBPATH: 'modules',
      MODULES_GIT_POLL_INTERVAL: '1s',
      MODULES_GIT_CACHE_DIR: path.join(env.tree.root, 'git-cache'),
      KADDON_JQ_TIMEOUT: '2s',
      // The commit that removes one of two modules is 50 %, which the prune guard holds
      // (docs/lifecycle.md "Missing inputs and mass deletion"): this test is about the purge.
      KADDON_PRUNE_GUARD_PERCENT: '51',
    },
  });
});

after(async () => {
  await env.stop();
  repo.remove();
});

/** The kit's `eventually` on this file's operator, with this file's deadline. */
function waitFor<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  return eventually(operator, what, check, DEADLINE_MS);
}

async function revision(release: string): Promise<number | undefined> {
  return (await env.helm.status(release, NAMESPACE))?.revision;
}

/** The release's revision once its manifest matches `pattern`. */
function releaseMatching(release: string, pattern: RegExp): Promise<number> {
  return waitFor(`release ${release} matching ${String(pattern)}`, async () =>
    pattern.test(await env.helm.getManifest(release, NAMESPACE)) ? revision(release) : undefined,
  );
}

async function gitStatus(): Promise<GitStatus> {
  const run = await runCli([
    'git',
    'status',
    '-o',
    'json',
    '--debug-unix-socket',
    path.join(env.tree.root, 'debug.socket'),
  ]);
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout) as GitStatus;
}

async function gitSyncErrors(): Promise<number> {
  return sample(await scrapeMetrics(env.port), 'addon_operator_git_sync_errors_total') ?? 0;
}

describe('kaddon operator following a Git repository', () => {
  it('converges each good revision, refuses a broken one, and purges a removed module', async () => {
    // No good revision yet: the operator waits, live but not ready, and counts the refusal.
    await waitFor('a refusal counted', async () => ((await gitSyncErrors()) > 0 ? true : undefined));
    assert.equal((await fetch(`http://127.0.0.1:${env.port}/readyz`)).status, 503);
    assert.equal((await fetch(`http://127.0.0.1:${env.port}/healthz`)).status, 200);
    await waitFor('the wait logged', () =>
      Promise.resolve(operator.output().includes('no good revision yet') ? true : undefined),
    );
    // The debug socket already answers: git status says why; the rest says the operator is starting.
    const waiting = await gitStatus();
    assert.equal(waiting.revisionInUse, undefined);
    assert.match(waiting.lastError ?? '', /missing\.yaml/u, 'the refusal names the file');
    const modules = await runCli([
      'module',
      'list',
      '--debug-unix-socket',
      path.join(env.tree.root, 'debug.socket'),
    ]);
    assert.equal(modules.code, 1);
    assert.match(modules.stderr, /the operator is starting: waiting for the first good revision/u);

    // The first good revision converges.
    repo.write({ 'modules/020-extra/kustomization.yaml': kustomization('configmap.yaml') });
    repo.commit('initial');
    await waitReady(operator, env.port, DEADLINE_MS);
    assert.equal(await releaseMatching('app', /greeting: hello[\s\S]*hook: v1/u), 1);
    assert.equal(await revision('extra'), 1);

    // A commit that changes a value, and the hook with a new schedule binding: app is upgraded
    // with both, the schedule runs, extra is not touched.
    const ticks = path.join(env.tree.root, 'ticks.log');
    repo.write({
      'modules/010-app/values.yaml': 'app:\n  greeting: bonjour\n  fromHook: none\n',
      'modules/010-app/hooks/mark.sh': appHook('v2', ticks),
    });
    const good = repo.commit('greeting and hook');
    assert.equal(await releaseMatching('app', /greeting: bonjour[\s\S]*hook: v2/u), 2);
    assert.equal((await gitStatus()).revisionInUse, good);
    assert.equal(await revision('extra'), 1);
    await waitFor('a schedule run of the re-registered hook', async () =>
      (await readFile(ticks, 'utf8').catch(() => '')).includes('tick') ? true : undefined,
    );

    // A broken module: refused, the last good revision keeps serving.
    const errorsBefore = await gitSyncErrors();
    repo.write({ 'modules/020-extra/kustomization.yaml': kustomization('missing.yaml') });
    const broken = repo.commit('broken extra');
    const refusal = await waitFor('the refusal in git status', async () => {
      const status = await gitStatus();
      return status.lastError === undefined ? undefined : status;
    });
    assert.match(refusal.lastError ?? '', /020-extra[\s\S]*missing\.yaml/u);
    assert.equal(refusal.revisionInUse, good);
    assert.ok((await gitSyncErrors()) > errorsBefore, 'git_sync_errors_total counts the refusal');
    assert.match(
      operator.output(),
      new RegExp(`revision refused.*${broken}|${broken}.*revision refused`, 'u'),
    );
    assert.match(operator.output(), /missing\.yaml/u);
    assert.equal(await revision('app'), 2, 'app keeps its release');
    assert.equal(await revision('extra'), 1, 'extra keeps its release');

    // A condition that never ends: refused within KADDON_JQ_TIMEOUT, and the operator stays ready.
    repo.write({
      'modules/020-extra/kustomization.yaml':
        "resources: [configmap.yaml]\ncomponents:\n- path: ha\n  when: 'def f: f; f'\n",
      'modules/020-extra/ha/kustomization.yaml':
        'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n',
      'modules/020-extra/configmap.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\ndata:\n  x: "1"\n',
    });
    const endless = repo.commit('endless condition');
    const stopped = await waitFor('the endless condition refused', async () => {
      const status = await gitStatus();
      return /did not finish within 2 s/u.test(status.lastError ?? '') ? status : undefined;
    });
    assert.match(stopped.lastError ?? '', /020-extra/u);
    assert.equal(stopped.revisionInUse, good, 'the last good revision keeps serving');
    assert.ok(operator.output().includes(endless), 'the log names the refused revision');
    const ready = await fetch(`http://127.0.0.1:${String(env.port)}/readyz`);
    assert.equal(ready.status, 200, 'the operator stays ready');
    repo.delete('modules/020-extra/ha');

    // The fix is picked up.
    repo.write({
      'modules/020-extra/kustomization.yaml': kustomization('configmap.yaml'),
      'modules/020-extra/configmap.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\ndata:\n  x: "2"\n',
    });
    const fixed = repo.commit('fixed extra');
    assert.equal(await releaseMatching('extra', /x: "2"/u), 2);
    const status = await gitStatus();
    assert.equal(status.revisionInUse, fixed);
    assert.equal(status.lastError, undefined);

    // A removed module: its release is purged; the other stays.
    repo.delete('modules/020-extra');
    repo.write({ 'modules/values.yaml': 'global: {}\nappEnabled: true\n' });
    repo.commit('remove extra');
    await waitFor('extra purged', async () =>
      (await env.helm.list(NAMESPACE)).includes('extra') ? undefined : true,
    );
    assert.equal(await revision('app'), 2, 'app is not upgraded by the removal');

    operator.process.kill('SIGTERM');
    const result = await operator.process;
    assert.equal(result.exitCode, 0, operator.tail());
  });
});
