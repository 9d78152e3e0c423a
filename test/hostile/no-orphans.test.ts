import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureHelm } from '../cluster/ensure-helm.ts';
import { descendants, isAlive, type ProcessEntry } from '../processes.ts';
import { repoRoot } from '../repo-root.ts';
import { ensureRenderer } from '../charts/reference-helm.ts';
import { makeTempTree } from '../temp-tree.ts';
import { leftIn } from './run-kaddon.ts';

/**
 * Nothing `kaddon build` starts outlives it, however it is ended (docs/lifecycle.md "Bounds and
 * timeouts"): SIGTERM and SIGINT end helm's or the hook's process group and remove the temp
 * directories before kaddon exits 1; after a SIGKILL, which runs no code in kaddon, its watchdog
 * does the same.
 */
const tmp = makeTempTree('no-orphans');
let helmPath: string;
before(async () => {
  helmPath = (await ensureHelm()).helm;
});
after(() => {
  tmp.remove();
});

/** A template that doubles its work at each of 40 levels: 2^40 includes, for ever in practice. */
const EXPONENTIAL =
  '{{- define "boom" -}}{{- if lt (len .) 40 -}}{{ include "boom" (printf "%s%s" . "a") }}{{ include "boom" (printf "%s%s" . "b") }}{{- end -}}{{- end -}}\n';

function chartModules(name: string): string {
  const dir = tmp.write(name, {
    'modules/values.yaml': 'boomEnabled: true\nboom:\n  x: 1\n',
    'modules/010-boom/templates/_helpers.tpl': EXPONENTIAL,
    'modules/010-boom/templates/cm.yaml':
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: boom\ndata:\n  x: "{{ include "boom" "" | len }}"\n',
  });
  return path.join(dir, 'modules');
}

/** A module whose beforeHelm hook starts a background sleep and sleeps itself. */
function sleepingHookModules(name: string): string {
  const hook = 'modules/010-nap/hooks/nap.sh';
  const dir = tmp.write(name, {
    'modules/values.yaml': 'napEnabled: true\n',
    'modules/010-nap/kustomization.yaml': 'resources: []\n',
    [hook]:
      '#!/usr/bin/env bash\nif [ "${1:-}" = "--config" ]; then echo \'{"configVersion":"v1","beforeHelm":1}\'; exit 0; fi\nsleep 300 &\nsleep 301\n',
  });
  chmodSync(path.join(dir, hook), 0o755);
  return path.join(dir, 'modules');
}

async function waitFor<T>(what: string, timeoutMs: number, probe: () => T | undefined): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = probe();
    if (found !== undefined) return found;
    assert.ok(Date.now() < deadline, `${what} within ${String(timeoutMs / 1000)} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

type Stopper = 'SIGKILL' | 'SIGTERM' | 'SIGINT' | 'SIGHUP';

/**
 * Starts `kaddon build ARGS` in a TMPDIR of its own, waits until `busy` names its working
 * processes, sends `signal`, and checks that every process it had started ends and its temp
 * directories are gone. The processes would live for minutes by themselves (a render that never
 * ends, `sleep 300`); the watchdog ends them at once and SIGKILLs what is left 2 s later
 * (src/processes/orphan-watchdog.ts). The 30 s deadline only bounds a failure: on a machine
 * loaded eight times over, the watchdog's own 2 s took more than 5.
 */
const ENDED_WITHIN_MS = 30_000;
async function stopMidRun(
  signal: Stopper,
  args: readonly string[],
  busy: (processes: ProcessEntry[]) => boolean,
  env: Readonly<Record<string, string>> = {},
): Promise<{ code: number | null; stderr: string }> {
  const tmpRoot = mkdtempSync(path.join(tmpdir(), 'kaddon-no-orphans-'));
  try {
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin/kaddon.js'), 'build', ...args], {
      env: { ...process.env, ...env, TMPDIR: tmpRoot },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const started = await waitFor('the run starts its processes', 120_000, () => {
      const found = descendants(child.pid ?? 0);
      return busy(found) ? found : undefined;
    });
    assert.notDeepEqual(leftIn(tmpRoot), [], 'the run has its temp directory');
    child.kill(signal);
    const code = await exited;
    await waitFor('no process it started is left', ENDED_WITHIN_MS, () =>
      started.every((entry) => !isAlive(entry.pid)) ? true : undefined,
    );
    await waitFor('no temp directory is left', ENDED_WITHIN_MS, () =>
      leftIn(tmpRoot).length === 0 ? true : undefined,
    );
    return { code, stderr };
  } finally {
    rmSync(tmpRoot, { recursive: true, force: true });
  }
}

const rendering = (found: ProcessEntry[]): boolean => found.some((entry) => entry.command === 'helm');
/** The chart renderer, by the start of its command name (the kernel keeps 15 characters). */
const renderingNatively = (found: ProcessEntry[]): boolean =>
  found.some((entry) => entry.command.startsWith('kaddon-chart-r'));
const napping = (found: ProcessEntry[]): boolean =>
  found.filter((entry) => entry.command === 'sleep').length === 2;

describe('kaddon build ended mid-run leaves nothing running or behind', () => {
  for (const signal of ['SIGKILL', 'SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    it(`${signal} during a chart render that never ends (the chart renderer)`, async () => {
      ensureRenderer();
      const outcome = await stopMidRun(signal, [chartModules(`renderer-${signal}`)], renderingNatively, {
        KADDON_CHART_RENDERER: 'native',
      });
      if (signal === 'SIGKILL') assert.equal(outcome.code, null);
      else {
        assert.equal(outcome.code, 1, outcome.stderr);
        assert.match(outcome.stderr, /release 'boom': helm template .*was ended: kaddon is stopping/);
      }
    });

    it(`${signal} during a chart render that never ends (helm template)`, async () => {
      const outcome = await stopMidRun(
        signal,
        [chartModules(`chart-${signal}`), '--helm-path', helmPath],
        rendering,
        { KADDON_CHART_RENDERER: 'helm' },
      );
      if (signal === 'SIGKILL') assert.equal(outcome.code, null);
      else {
        assert.equal(outcome.code, 1, outcome.stderr);
        assert.match(outcome.stderr, /release 'boom': helm template .*was ended: kaddon is stopping/);
      }
    });

    it(`${signal} during a hook that sleeps, with a background sleep of its own`, async () => {
      const outcome = await stopMidRun(
        signal,
        [sleepingHookModules(`hook-${signal}`), '--run-hooks'],
        napping,
      );
      if (signal === 'SIGKILL') assert.equal(outcome.code, null);
      else assert.equal(outcome.code, 1, outcome.stderr);
    });
  }
});
