import assert from 'node:assert/strict';
import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeTempTree, type TempTree } from '../../../test/temp-tree.ts';
import { createCapturingLogger, type CapturingLogger } from '../../observability/logger.ts';
import { runEnabledScript, type EnabledScriptRequest } from './run-enabled-script.ts';
import { createHookRunDeps, DEFAULT_HOOK_RUN_LIMITS, type HookRunDeps } from './run-hook-deps.ts';
import { selectHookEnv } from './run-hook-env.ts';

/** docs/values.md: global.enabledModules holds the modules enabled before this one. */
const VALUES = '{"global":{"param1":100,"enabledModules":["first-module"]},"someModule":{"param1":"String"}}';
const CONFIG_VALUES = '{"global":{},"someModule":{"param1":"String"}}';

let tree: TempTree;
let tmpRoot: string;
let logger: CapturingLogger;

before(() => {
  tree = makeTempTree('enabled-script');
  tmpRoot = tree.write('tmp', {});
});

after(() => {
  tree.remove();
});

function deps(): HookRunDeps {
  logger = createCapturingLogger();
  return createHookRunDeps({
    logger,
    baseEnv: selectHookEnv(process.env),
    cwd: tree.root,
    tmpRoot,
    limits: { ...DEFAULT_HOOK_RUN_LIMITS, killGraceMs: 200, drainMs: 200 },
  });
}

function script(module: string, text: string | undefined, mode = 0o755): EnabledScriptRequest {
  const dir = tree.write(module, {});
  const file = path.join(dir, 'enabled');
  if (text !== undefined) {
    writeFileSync(file, text);
    chmodSync(file, mode);
  }
  return { moduleName: 'some-module', path: file, valuesJson: VALUES, configValuesJson: CONFIG_VALUES };
}

describe('runEnabledScript', () => {
  it('enables the module when the script writes true, and passes the values byte for byte', async () => {
    const out = path.join(tree.root, 'seen-values');
    const request = script(
      '001-true',
      `#!/bin/bash
cp "$VALUES_PATH" "${out}"
cp "$CONFIG_VALUES_PATH" "${out}-config"
echo true > "$MODULE_ENABLED_RESULT"
`,
    );
    const result = await runEnabledScript(request, deps());
    assert.deepEqual(result, { outcome: 'script', enabled: true, reason: undefined, error: undefined });
    assert.equal(readFileSync(out, 'utf8'), VALUES);
    assert.equal(readFileSync(`${out}-config`, 'utf8'), CONFIG_VALUES);
    assert.deepEqual(readdirSync(tmpRoot), []);
  });

  it('disables the module with the reason the script gives (python script)', async () => {
    const request = script(
      '002-false',
      `#!/usr/bin/env python3
import json, os
values = json.load(open(os.environ["VALUES_PATH"]))
enabled = "other-module" in values["global"]["enabledModules"]
open(os.environ["MODULE_ENABLED_RESULT"], "w").write("true" if enabled else "false")
open(os.environ["MODULE_ENABLED_REASON"], "w").write("other-module is not enabled\\n")
`,
    );
    const result = await runEnabledScript(request, deps());
    assert.deepEqual(result, {
      outcome: 'script',
      enabled: false,
      reason: 'other-module is not enabled',
      error: undefined,
    });
  });

  it('fails with the script and what it wrote when the result is neither true nor false', async () => {
    const request = script('003-garbage', '#!/bin/bash\necho maybe > "$MODULE_ENABLED_RESULT"\n');
    const result = await runEnabledScript(request, deps());
    assert.equal(result.outcome, 'failed');
    assert.equal(result.enabled, false);
    assert.equal(result.error?.code, 'enabled-script-invalid-result');
    assert.equal(
      result.error.message,
      `enabled script '${request.path}': wrote 'maybe' to $MODULE_ENABLED_RESULT, expected true or false.`,
    );
    assert.deepEqual(readdirSync(tmpRoot), []);
  });

  it('fails when the script writes nothing', async () => {
    const result = await runEnabledScript(script('004-silent', '#!/bin/bash\necho "thinking"\n'), deps());
    assert.equal(result.outcome, 'failed');
    assert.match(result.error?.message ?? '', /wrote nothing to \$MODULE_ENABLED_RESULT/u);
    assert.deepEqual(
      logger.entries.filter((entry) => entry.fields.output === 'stdout').map((entry) => entry.msg),
      ['thinking'],
    );
  });

  it('fails when the script exits non-zero, even after writing true', async () => {
    const request = script(
      '005-crash',
      '#!/bin/bash\necho true > "$MODULE_ENABLED_RESULT"\necho oops >&2\nexit 1\n',
    );
    const result = await runEnabledScript(request, deps());
    assert.equal(result.outcome, 'failed');
    assert.equal(result.enabled, false);
    assert.equal(result.error?.code, 'enabled-script-failed');
    assert.equal(result.error.message, `enabled script '${request.path}': exited with code 1: oops.`);
    assert.deepEqual(readdirSync(tmpRoot), []);
  });

  it('keeps the module enabled when there is no script', async () => {
    const result = await runEnabledScript(script('006-absent', undefined), deps());
    assert.deepEqual(result, { outcome: 'absent', enabled: true, reason: undefined, error: undefined });
  });

  it('keeps the module enabled with a warning when the script is not executable', async () => {
    const result = await runEnabledScript(
      script('007-not-executable', '#!/bin/bash\necho false > "$MODULE_ENABLED_RESULT"\n', 0o644),
      deps(),
    );
    assert.deepEqual(result, {
      outcome: 'not-executable',
      enabled: true,
      reason: undefined,
      error: undefined,
    });
    assert.match(logger.entries.at(-1)?.msg ?? '', /not executable/u);
  });
});
