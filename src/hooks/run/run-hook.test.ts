import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeTempTree, type TempTree } from '../../../test/temp-tree.ts';
import { createCapturingLogger, type CapturingLogger } from '../../observability/logger.ts';
import { parseHookMetrics } from '../hook-metrics.ts';
import { runHookConfig } from './run-hook-config.ts';
import { createHookRunDeps, DEFAULT_HOOK_RUN_LIMITS, type HookRunDeps } from './run-hook-deps.ts';
import { HOOK_INHERITED_ENV, selectHookEnv } from './run-hook-env.ts';
import { HookError } from './run-hook-error.ts';
import { runHook, type HookRunRequest } from './run-hook.ts';

/** docs/values.md "Values in hooks, enabled scripts and charts": the $VALUES_PATH example, byte for byte. */
const SEED_VALUES = `{"global":{
    "param1":200,
    "param2": "YES"
}, "someModule":{
    "param1":"Long string",
    "param2": "FOO"
}}`;
const SEED_CONFIG_VALUES = `{"global":{
    "param1":200
}, "someModule":{
    "param1":"Long string",
    "param2": "FOO"
}}`;
const BINDING_CONTEXT = '[{"binding":"beforeHelm","snapshots":{}}]';

let tree: TempTree;
let tmpRoot: string;
let out: string;
let logger: CapturingLogger;
let deps: HookRunDeps;

before(() => {
  tree = makeTempTree('run-hook');
  tmpRoot = tree.write('tmp', {});
  out = tree.write('out', {});
  // Must not reach hooks: kaddon passes only the allow-listed part of its environment.
  process.env.KADDON_TEST_SECRET = 'do-not-leak';
});

after(() => {
  delete process.env.KADDON_TEST_SECRET;
  tree.remove();
});

function freshDeps(maxLoggedBytes = 64 * 1024 * 1024): HookRunDeps {
  logger = createCapturingLogger();
  deps = createHookRunDeps({
    logger,
    baseEnv: selectHookEnv(process.env),
    cwd: tree.root,
    tmpRoot,
    limits: {
      ...DEFAULT_HOOK_RUN_LIMITS,
      killGraceMs: 300,
      drainMs: 300,
      maxLineBytes: 4096,
      maxLoggedBytes,
    },
  });
  return deps;
}

function writeHook(name: string, text: string): string {
  const file = path.join(tree.root, 'hooks', name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  chmodSync(file, 0o755);
  return file;
}

function request(name: string, text: string, extra: Partial<HookRunRequest> = {}): HookRunRequest {
  return {
    name: `hooks/${name}`,
    path: writeHook(name, text),
    bindingContextJson: BINDING_CONTEXT,
    valuesJson: SEED_VALUES,
    configValuesJson: SEED_CONFIG_VALUES,
    extraEnv: { OUT_DIR: out },
    ...extra,
  };
}

function assertNoTempFilesLeft(): void {
  assert.deepEqual(readdirSync(tmpRoot), []);
}

function lines(output: 'stdout' | 'stderr'): string[] {
  return logger.entries.filter((entry) => entry.fields.output === output).map((entry) => entry.msg);
}

/** Gone, or a zombie waiting for init: either way no longer running. */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function waitUntilStopped(pid: number): Promise<boolean> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    if (!isRunning(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

describe('runHook', () => {
  it('passes the input files byte for byte in a private dir and creates empty output files', async () => {
    const result = await runHook(
      request(
        'copy-inputs.sh',
        `#!/bin/bash
set -euo pipefail
cp "$VALUES_PATH" "$OUT_DIR/values"
cp "$CONFIG_VALUES_PATH" "$OUT_DIR/config-values"
cp "$BINDING_CONTEXT_PATH" "$OUT_DIR/binding-context"
stat -c '%a' "$(dirname "$VALUES_PATH")" "$VALUES_PATH" "$METRICS_PATH" > "$OUT_DIR/modes"
for f in "$VALUES_JSON_PATCH_PATH" "$CONFIG_VALUES_JSON_PATCH_PATH" "$METRICS_PATH" "$KUBERNETES_PATCH_PATH"; do
  test -f "$f" && ! test -s "$f"
done
echo "inputs copied"
`,
      ),
      freshDeps(),
    );
    assert.equal(result.error, undefined);
    assert.equal(result.ok, true);
    assert.equal(result.exitCode, 0);
    assert.equal(readFileSync(path.join(out, 'values'), 'utf8'), SEED_VALUES);
    assert.equal(readFileSync(path.join(out, 'config-values'), 'utf8'), SEED_CONFIG_VALUES);
    assert.equal(readFileSync(path.join(out, 'binding-context'), 'utf8'), BINDING_CONTEXT);
    assert.deepEqual(readFileSync(path.join(out, 'modes'), 'utf8').split('\n'), ['700', '600', '600', '']);
    assert.deepEqual(lines('stdout'), ['inputs copied']);
    assert.equal(
      logger.entries.find((entry) => entry.fields.output === 'stdout')?.fields.hook,
      'hooks/copy-inputs.sh',
    );
    assert.deepEqual(result.valuesPatchText, '');
    assertNoTempFilesLeft();
  });

  it('gives the hook a minimal environment and the operator working directory (node hook)', async () => {
    const result = await runHook(
      request(
        'print-env.js',
        `#!/usr/bin/env node
console.log(JSON.stringify({ env: process.env, cwd: process.cwd() }));
`,
        { extraEnv: { MODULE_NAME: 'echo-server' } },
      ),
      freshDeps(),
    );
    assert.equal(result.ok, true);
    const printed = JSON.parse(lines('stdout')[0] ?? '{}') as { env: Record<string, string>; cwd: string };
    const inherited = HOOK_INHERITED_ENV.filter((name) => process.env[name] !== undefined);
    const expected = [
      ...new Set([
        ...inherited,
        'PATH',
        'MODULE_NAME',
        'BINDING_CONTEXT_PATH',
        'VALUES_PATH',
        'CONFIG_VALUES_PATH',
        'VALUES_JSON_PATCH_PATH',
        'CONFIG_VALUES_JSON_PATCH_PATH',
        'METRICS_PATH',
        'KUBERNETES_PATCH_PATH',
      ]),
    ].sort();
    assert.deepEqual(Object.keys(printed.env).sort(), expected);
    assert.equal(printed.env.KADDON_TEST_SECRET, undefined);
    assert.equal(printed.env.MODULE_NAME, 'echo-server');
    assert.equal(printed.cwd, tree.root);
  });

  it('reads back the values patch, config patch, metrics and object patches (python hook)', async () => {
    const result = await runHook(
      request(
        'write-outputs.py',
        `#!/usr/bin/env python3
import os
with open(os.environ["VALUES_JSON_PATCH_PATH"], "w") as f:
    f.write('[{"op":"add","path":"/someModule/replicas","value":2}]')
with open(os.environ["CONFIG_VALUES_JSON_PATCH_PATH"], "w") as f:
    f.write('[{"op":"add", "path":"/someModule/param3", "value":"newValue"}]\\n')
with open(os.environ["METRICS_PATH"], "a") as f:
    f.write('{"name":"hook_metric_count","action":"add","value":1,"labels":{"label1":"value1"}}\\n')
    f.write('{"group":"hook1","name":"hook1_special_metric","action":"set","value":12}\\n')
with open(os.environ["KUBERNETES_PATCH_PATH"], "w") as f:
    f.write("operation: Delete\\nkind: Pod\\nnamespace: default\\nname: p\\n")
print("done")
`,
      ),
      freshDeps(),
    );
    assert.equal(result.ok, true);
    assert.equal(result.valuesPatchText, '[{"op":"add","path":"/someModule/replicas","value":2}]');
    assert.equal(result.configPatchText, '[{"op":"add", "path":"/someModule/param3", "value":"newValue"}]\n');
    assert.equal(result.kubernetesPatchText, 'operation: Delete\nkind: Pod\nnamespace: default\nname: p\n');
    const metrics = parseHookMetrics(result.metricsText);
    assert.deepEqual(metrics.invalid, []);
    assert.deepEqual(
      metrics.operations.map((op) => op.action),
      ['add', 'set'],
    );
    assertNoTempFilesLeft();
  });

  it('returns a failing hook as a value with its exit code and last stderr line', async () => {
    const result = await runHook(
      request(
        'fail.sh',
        `#!/bin/bash
echo '[{"op":"add","path":"/x","value":1}]' > "$VALUES_JSON_PATCH_PATH"
echo "checking the setting"
echo "something went wrong" >&2
exit 3
`,
      ),
      freshDeps(),
    );
    assert.equal(result.ok, false);
    assert.equal(result.exitCode, 3);
    assert.equal(result.timedOut, false);
    assert.ok(result.error instanceof HookError);
    assert.equal(result.error.code, 'hook-failed');
    assert.equal(result.error.message, "hook 'hooks/fail.sh': exited with code 3: something went wrong.");
    assert.equal(result.error.stderrTail, 'something went wrong');
    assert.deepEqual(result.output, { stdout: 'checking the setting', stderr: 'something went wrong' });
    // Output files are still read: object patches of a failed module hook apply (reference 2.1).
    assert.equal(result.valuesPatchText, '[{"op":"add","path":"/x","value":1}]\n');
    assert.deepEqual(lines('stderr'), ['something went wrong']);
    assertNoTempFilesLeft();
  });

  it('reports a hook that cannot be started', async () => {
    const result = await runHook(
      { ...request('placeholder.sh', '#!/bin/bash\n'), path: path.join(tree.root, 'hooks', 'missing.sh') },
      freshDeps(),
    );
    assert.equal(result.ok, false);
    assert.equal(result.error?.code, 'hook-not-started');
    assert.match(result.error.message, /^hook 'hooks\/placeholder\.sh': could not be started/u);
    assertNoTempFilesLeft();
  });

  it('kills a hanging hook and its grandchild when the timeout expires', async () => {
    const result = await runHook(
      request(
        'hang.sh',
        `#!/bin/bash
sleep 1000 &
echo $! > "$OUT_DIR/hang-grandchild.pid"
echo "waiting"
sleep 1000
`,
        { timeoutMs: 500 },
      ),
      freshDeps(),
    );
    assert.equal(result.ok, false);
    assert.equal(result.timedOut, true);
    assert.equal(result.error?.code, 'hook-timeout');
    assert.deepEqual(lines('stdout'), ['waiting']);
    const grandchild = Number(readFileSync(path.join(out, 'hang-grandchild.pid'), 'utf8'));
    assert.equal(await waitUntilStopped(grandchild), true, `grandchild ${String(grandchild)} still runs`);
    assertNoTempFilesLeft();
  });

  it('follows SIGTERM with SIGKILL for a hook and grandchild that ignore SIGTERM', async () => {
    const result = await runHook(
      request(
        'stubborn.sh',
        `#!/bin/bash
trap '' TERM
sleep 1000 &
echo $! > "$OUT_DIR/stubborn-grandchild.pid"
while true; do sleep 0.1; done
`,
        { timeoutMs: 300 },
      ),
      freshDeps(),
    );
    assert.equal(result.timedOut, true);
    assert.equal(result.signal, 'SIGKILL');
    assert.equal(result.error?.code, 'hook-timeout');
    const grandchild = Number(readFileSync(path.join(out, 'stubborn-grandchild.pid'), 'utf8'));
    assert.equal(await waitUntilStopped(grandchild), true);
    assertNoTempFilesLeft();
  });

  it('finishes when a hook exits but leaves a background process holding its output', async () => {
    const result = await runHook(
      request(
        'leave-behind.sh',
        `#!/bin/bash
sleep 1000 &
echo $! > "$OUT_DIR/left-behind.pid"
echo "exiting"
`,
      ),
      freshDeps(),
    );
    assert.equal(result.ok, true);
    assert.equal(result.exitCode, 0);
    const leftover = Number(readFileSync(path.join(out, 'left-behind.pid'), 'utf8'));
    assert.equal(await waitUntilStopped(leftover), true);
  });

  it('logs up to its budget of output and drops the rest, saying how much, without holding it in memory', async () => {
    const result = await runHook(
      request('chatty.sh', '#!/bin/bash\nyes 0123456789 | head -c 20000000\necho done >&2\n'),
      freshDeps(100_000),
    );
    assert.equal(result.ok, true);
    const stdout = logger.entries.filter((entry) => entry.fields.output === 'stdout');
    const lines = stdout.filter((entry) => entry.msg === '0123456789');
    // 100000 bytes of 11-byte lines: 9090 whole lines, then the 10 bytes of the next without its newline.
    assert.equal(lines.length, 9091);
    const summary = stdout.at(-1);
    assert.equal(summary?.msg, 'output over 100000 bytes not logged');
    assert.equal(summary.fields.droppedBytes, 20_000_000 - 100_000);
    assert.ok(logger.entries.some((entry) => entry.fields.output === 'stderr' && entry.msg === 'done'));
  });

  it('logs megabytes of output line by line and cuts a 5 MB line without a newline', async () => {
    const result = await runHook(
      request(
        'flood.sh',
        `#!/bin/bash
seq 1 200000
head -c 5000000 /dev/zero | tr '\\0' 'a' >&2
echo >&2
echo "after the long line" >&2
head -c 5000000 /dev/zero | tr '\\0' 'b'
`,
      ),
      freshDeps(),
    );
    assert.equal(result.ok, true);
    const stdout = logger.entries.filter((entry) => entry.fields.output === 'stdout');
    assert.equal(stdout.length, 200001);
    assert.equal(stdout[0]?.msg, '1');
    assert.equal(stdout[199999]?.msg, '200000');
    // The last stdout line has no newline at all: it is emitted at the end of the stream.
    const last = stdout.at(-1);
    assert.deepEqual([last?.msg, last?.fields.truncatedBytes], ['b'.repeat(4096), 5000000 - 4096]);
    const stderr = logger.entries.filter((entry) => entry.fields.output === 'stderr');
    assert.deepEqual(
      stderr.map((entry) => [entry.msg.length, entry.fields.truncatedBytes]),
      [
        [4096, 5000000 - 4096],
        ['after the long line'.length, undefined],
      ],
    );
    assertNoTempFilesLeft();
  });

  it('rejects an output file that is not a regular file instead of blocking on it', async () => {
    const result = await runHook(
      request(
        'fifo.sh',
        `#!/bin/bash
rm "$METRICS_PATH"
mkfifo "$METRICS_PATH"
`,
      ),
      freshDeps(),
    );
    assert.equal(result.ok, false);
    assert.equal(result.exitCode, 0);
    assert.equal(result.error?.code, 'hook-output-invalid');
    assert.match(result.error.message, /\$METRICS_PATH: metrics\.json is not a regular file/u);
    assertNoTempFilesLeft();
  });

  it('reports CPU usage of the run from /proc', async () => {
    const result = await runHook(
      request('busy.sh', '#!/bin/bash\nfor i in $(seq 1 20000); do :; done\n'),
      freshDeps(),
    );
    assert.equal(result.ok, true);
    assert.ok(result.usage, 'usage is reported on Linux');
    assert.ok(Number.isFinite(result.usage.userCpuSeconds) && result.usage.userCpuSeconds >= 0);
    assert.ok(Number.isFinite(result.usage.sysCpuSeconds) && result.usage.sysCpuSeconds >= 0);
  });
});

describe('runHookConfig', () => {
  it('returns what `<hook> --config` prints and logs its stderr', async () => {
    const config = '{"configVersion":"v1","onStartup":1}\n';
    const hook = writeHook(
      'config.sh',
      `#!/bin/bash
if [[ "$1" == "--config" ]]; then
  echo "printing config" >&2
  printf '%s\\n' '${config.trim()}'
  exit 0
fi
exit 1
`,
    );
    const printed = await runHookConfig({ name: 'hooks/config.sh', path: hook }, freshDeps());
    assert.equal(printed, config);
    assert.deepEqual(lines('stdout'), []);
    assert.deepEqual(lines('stderr'), ['printing config']);
  });

  it('throws a HookError naming the hook when --config fails', async () => {
    const hook = writeHook('bad-config.sh', '#!/bin/bash\necho "no config for you" >&2\nexit 2\n');
    await assert.rejects(runHookConfig({ name: 'hooks/bad-config.sh', path: hook }, freshDeps()), (error) => {
      assert.ok(error instanceof HookError);
      assert.equal(error.code, 'hook-config-failed');
      assert.equal(
        error.message,
        "hook 'hooks/bad-config.sh': --config exited with code 2: no config for you.",
      );
      return true;
    });
  });
});
