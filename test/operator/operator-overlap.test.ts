import assert from 'node:assert/strict';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  startOperatorEnvironment,
  stateModuleFiles,
  waitReady,
  type OperatorEnvironment,
} from './operator-e2e-kit.ts';

const NAMESPACE = 'kaddon-overlap';
const LIMIT = 3;
const PLAIN = ['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7'];
let env: OperatorEnvironment;
let calls: string;
let checks: string;

/**
 * docs/lifecycle.md "Overlapping delivery", seen from outside: helm is the real binary behind a
 * wrapper that logs when each `helm upgrade` starts and ends, and fails the first upgrade of the
 * release `flaky`.
 */
before(async () => {
  env = await startOperatorEnvironment({ namespace: NAMESPACE, prefix: 'operator-overlap' });
  calls = path.join(env.tree.root, 'helm-calls.log');
  checks = path.join(env.tree.root, 'after-helm.log');
  const modules = [...PLAIN.slice(0, 3), 'flaky', 'checker', ...PLAIN.slice(3)];
  const files: Record<string, string> = {
    'modules/values.yaml': modules.map((module) => `${module}Enabled: true\n`).join(''),
  };
  for (const [index, module] of modules.entries()) {
    const dir = `${String(10 + index)}-${module}`;
    for (const [file, text] of Object.entries(stateModuleFiles(NAMESPACE, module, '  greeting: hello\n')))
      files[`modules/${dir}/${file}`] = text;
  }
  // afterHelm of `checker` asks helm whether its own release is there.
  files['modules/14-checker/hooks/check.sh'] = `#!/usr/bin/env bash
if [ "$1" = "--config" ]; then echo '{"configVersion":"v1","afterHelm":10}'; exit 0; fi
if "$HELM_BIN_PATH" status checker --namespace ${NAMESPACE} >/dev/null 2>&1; then echo delivered >> ${checks}; else echo missing >> ${checks}; fi
`;
  files['helm-wrapper.sh'] = `#!/usr/bin/env bash
if [ "$1" = "upgrade" ]; then
  release="$3"
  echo "start $release $(date +%s.%N)" >> ${calls}
  if [ "$release" = "flaky" ] && [ ! -e ${env.tree.root}/flaky-failed ]; then
    touch ${env.tree.root}/flaky-failed
    echo "end $release $(date +%s.%N)" >> ${calls}
    echo "Error: simulated failure of the first upgrade" >&2
    exit 1
  fi
  "${env.helmPath}" "$@"; status=$?
  echo "end $release $(date +%s.%N)" >> ${calls}
  exit $status
fi
exec "${env.helmPath}" "$@"
`;
  env.tree.write('', files);
  await chmod(path.join(env.tree.root, 'modules/14-checker/hooks/check.sh'), 0o755);
  await chmod(path.join(env.tree.root, 'helm-wrapper.sh'), 0o755);
  await writeFile(calls, '');
});
after(() => env.stop());

interface Call {
  readonly release: string;
  readonly start: number;
  readonly end: number;
}

async function upgradeCalls(): Promise<Call[]> {
  const started = new Map<string, number[]>();
  const done: Call[] = [];
  for (const line of (await readFile(calls, 'utf8')).split('\n').filter(Boolean)) {
    const [what, release = '', at = '0'] = line.split(' ');
    if (what === 'start') started.set(release, [...(started.get(release) ?? []), Number(at)]);
    else done.push({ release, start: started.get(release)?.shift() ?? 0, end: Number(at) });
  }
  return done;
}

/** The most upgrades that were running at one moment. */
function mostAtOnce(list: readonly Call[]): number {
  return Math.max(
    ...list.map((call) => list.filter((other) => other.start <= call.start && other.end > call.start).length),
  );
}

describe('overlapping helm deliveries (KADDON_CONCURRENT_DELIVERIES)', () => {
  it('overlaps upgrades up to the limit, awaits the release for afterHelm, and ends the converge only after a failed delivery succeeded', async () => {
    const operator = env.startOperator({
      forceKillAfterDelay: 30_000,
      extraEnv: {
        // The wrapper watches the helm binary's upgrades: the helm engine, not the default native one.
        KADDON_DELIVERY: 'helm',
        HELM_BIN_PATH: path.join(env.tree.root, 'helm-wrapper.sh'),
        KADDON_HELM_PATH: '',
        KADDON_CONCURRENT_DELIVERIES: String(LIMIT),
        // The converge waits for a failed delivery under addon-operator's head-of-line policy.
        KADDON_MODULE_FAILURE_POLICY: 'block',
      },
    });
    await waitReady(operator, env.port);
    // Ready means the converge ended: by then the failed release has been delivered again.
    const releases = await env.helm.list(NAMESPACE);
    assert.deepEqual([...releases].sort(), [...PLAIN, 'checker', 'flaky'].sort());
    const list = await upgradeCalls();
    const atOnce = mostAtOnce(list);
    assert.ok(atOnce > 1, `upgrades overlapped: at most ${String(atOnce)} at once`);
    assert.ok(atOnce <= LIMIT, `no more than ${String(LIMIT)} at once, saw ${String(atOnce)}`);
    assert.equal(
      list.filter((call) => call.release === 'flaky').length,
      2,
      'flaky: failed once, then delivered',
    );
    assert.match(operator.output(), /delivery of module flaky failed/u);
    assert.equal((await readFile(checks, 'utf8')).trim(), 'delivered', 'afterHelm saw its own release');
    console.log(
      `# ${String(list.length)} helm upgrades, at most ${String(atOnce)} at once (limit ${String(LIMIT)})`,
    );
  });
});
