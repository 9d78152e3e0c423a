import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
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

const NAMESPACE = 'kaddon-prune-guard-e2e';
const CONFIG_MAP = `/api/v1/namespaces/${NAMESPACE}/configmaps/addon-operator`;

let env: OperatorEnvironment;
let repo: GitFixture;
let operator: E2eOperator;
/** The modules in the tree, in order: each a folder `modules/0N0-<name>` enabled by modules/values.yaml. */
let tree: string[] = [];

const valuesKey = (module: string): string => module.replace(/-(\w)/gu, (_, c: string) => c.toUpperCase());
const moduleDir = (module: string, index: number): string => `modules/0${String(index + 1)}0-${module}`;

/** Commits a tree of `modules`, each a ConfigMap `<module>-state`; returns the commit. */
function commitTree(modules: string[], message: string, greeting = 'hello'): string {
  repo.delete(...tree.map(moduleDir));
  const files: Record<string, string> = {
    'modules/values.yaml': `global: {}\n${modules.map((m) => `${valuesKey(m)}Enabled: true\n`).join('')}`,
  };
  modules.forEach((module, index) => {
    const key = valuesKey(module);
    files[`${moduleDir(module, index)}/values.yaml`] = `${key}:\n  greeting: ${greeting}\n`;
    for (const [file, text] of Object.entries(
      stateModuleFiles(NAMESPACE, module, `  greeting: $(${key}.greeting)\n`),
    ))
      files[`${moduleDir(module, index)}/${file}`] = text;
  });
  repo.write(files);
  tree = modules;
  return repo.commit(message);
}

before(async () => {
  env = await startOperatorEnvironment({ namespace: NAMESPACE, prefix: 'operator-prune-guard-e2e' });
  repo = makeGitFixture('prune-guard');
  commitTree(['gen-a', 'gen-b', 'gen-c', 'gen-d'], 'four modules');
  await setOperatorConfig(env.api, NAMESPACE, {});
  operator = startGitOperator(env, repo.fileUrl);
  await waitReady(operator, env.port);
});

after(async () => {
  await env.stop();
  repo.remove();
});

async function installed(): Promise<string[]> {
  return (await env.helm.list(NAMESPACE)).sort();
}

async function heldGauge(): Promise<number | undefined> {
  return sample(await scrapeMetrics(env.port), 'addon_operator_prune_held_modules');
}

/** The ids of the holds the log reported for `releases` (in any order), oldest first. */
function heldIds(releases: string): string[] {
  const wanted = releases.split(',').sort().join(',');
  return operator
    .output()
    .split('\n')
    .filter((line) => line.includes('uninstalls held'))
    .filter((line) => /\breleases=(\S+)/u.exec(line)?.[1]?.split(',').sort().join(',') === wanted)
    .map((line) => /\bid=([0-9a-f]{12})\b/u.exec(line)?.[1] ?? '');
}

/** Waits for a hold of `releases` other than those already reported; returns its id. */
async function nextHold(releases: string, count: number, seen: readonly string[]): Promise<string> {
  await eventually(operator, `${releases} held`, async () =>
    (await heldGauge()) === count ? true : undefined,
  );
  return eventually(operator, `a new hold of ${releases} logged`, () =>
    Promise.resolve(heldIds(releases).find((id) => !seen.includes(id))),
  );
}

async function confirm(id: string): Promise<void> {
  await env.api.request('PATCH', CONFIG_MAP, {
    body: { metadata: { annotations: { 'kaddon.dev/allow-prune': id } } },
    contentType: 'application/merge-patch+json',
  });
}

async function waitInstalled(releases: string[], what: string): Promise<void> {
  await eventually(operator, what, async () =>
    JSON.stringify(await installed()) === JSON.stringify([...releases].sort()) ? true : undefined,
  );
}

describe('kaddon operator: the prune guard holds the share or more, and a confirmation is used once', () => {
  let first = '';
  let second = '';

  it('holds exactly the share: 2 of 4 modules disabled at once at 50 %', async () => {
    await setOperatorConfig(env.api, NAMESPACE, { genAEnabled: 'false', genBEnabled: 'false' });
    first = await nextHold('gen-a,gen-b', 2, []);
    assert.match(
      operator.output(),
      /uninstalls held: 2 of 4 delivered releases would be uninstalled at once/u,
    );
    assert.deepEqual(await installed(), ['gen-a', 'gen-b', 'gen-c', 'gen-d']);
  });

  it('a confirmation uninstalls its set once: the same set disabled again is held with a new id', async () => {
    await confirm(first);
    await waitInstalled(['gen-c', 'gen-d'], 'gen-a and gen-b uninstalled');
    assert.equal(await heldGauge(), 0);

    await setOperatorConfig(env.api, NAMESPACE, { genAEnabled: 'true', genBEnabled: 'true' });
    await waitInstalled(['gen-a', 'gen-b', 'gen-c', 'gen-d'], 'gen-a and gen-b installed again');
    // The annotation still names the first hold: the same set at the same commit is held anew.
    await setOperatorConfig(env.api, NAMESPACE, { genAEnabled: 'false', genBEnabled: 'false' });
    second = await nextHold('gen-a,gen-b', 2, [first]);
    assert.notEqual(second, first);
    assert.deepEqual(await installed(), ['gen-a', 'gen-b', 'gen-c', 'gen-d']);
  });

  it('keeps holding a held set when new modules make it a smaller share (2 of 6)', async () => {
    const six = ['gen-a', 'gen-b', 'gen-c', 'gen-d', 'gen-e', 'gen-f'];
    commitTree(six, 'two more modules');
    await waitInstalled(six, 'gen-e and gen-f installed');
    const moved = await nextHold('gen-a,gen-b', 2, [first, second]);
    // A later commit converges again with 2 of 6 releases to uninstall: still held.
    const edit = commitTree(six, 'greeting edited', 'edited');
    await eventually(operator, 'the edit switched', () =>
      Promise.resolve(operator.output().includes(edit) ? true : undefined),
    );
    const third = await nextHold('gen-a,gen-b', 2, [first, second, moved]);
    assert.match(
      operator.output(),
      /2 of 6 delivered releases would be uninstalled at once \(gen-a, gen-b\), some of them held before/u,
    );
    assert.deepEqual(await installed(), six);

    await confirm(third);
    await waitInstalled(['gen-c', 'gen-d', 'gen-e', 'gen-f'], 'gen-a and gen-b uninstalled');
  });

  it('holds renamed modules, and keeps holding them once their new names are installed (4 of 8)', async () => {
    const renamed = ['ren-c', 'ren-d', 'ren-e', 'ren-f'];
    commitTree(renamed, 'modules renamed');
    const purges = 'gen-c,gen-d,gen-e,gen-f';
    await waitInstalled([...renamed, 'gen-c', 'gen-d', 'gen-e', 'gen-f'], 'the renamed modules installed');
    const held = await nextHold(purges, 4, []);

    // A later edit converges again with 4 of 8 releases to purge: still held.
    const edit = commitTree(renamed, 'greeting edited', 'edited');
    await eventually(operator, 'the edit switched', () =>
      Promise.resolve(operator.output().includes(edit) ? true : undefined),
    );
    const again = await nextHold(purges, 4, [held]);
    assert.match(operator.output(), /4 of 8 delivered releases would be uninstalled at once/u);
    assert.deepEqual(await installed(), [...renamed, 'gen-c', 'gen-d', 'gen-e', 'gen-f'].sort());

    await confirm(again);
    await waitInstalled(renamed, 'the old names purged');
    operator.process.kill('SIGTERM');
    const result = await operator.process;
    assert.equal(result.exitCode, 0, operator.tail());
  });
});
