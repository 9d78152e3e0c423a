import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { repoRoot } from '../repo-root.ts';
import { makeTempTree } from '../temp-tree.ts';

const run = promisify(execFile);
const tmp = makeTempTree('settings');
after(() => {
  tmp.remove();
});

/** `kaddon ARGS` as a process, with `env` over a clean environment (PATH and HOME only). */
async function kaddon(
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [path.join(repoRoot, 'bin/kaddon.js'), ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      cwd: repoRoot,
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error: unknown) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** A module `probe` whose beforeHelm hook copies $PROBE_GREETING (set on the "Deployment") into values. */
function treeWithGlobalHook(): string {
  const hook = (config: object, body: string): string =>
    `#!/usr/bin/env bash\nif [ "\${1:-}" = "--config" ]; then echo '${JSON.stringify(config)}'; exit 0; fi\n${body}\n`;
  const dir = tmp.write('tree', {
    'modules/values.yaml': 'probeEnabled: true\nprobe:\n  greeting: none\n',
    'modules/010-probe/kustomization.yaml': 'resources: [cm.yaml]\n',
    'modules/010-probe/cm.yaml':
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: probe\ndata:\n  greeting: "$(probe.greeting)"\n  cluster: "$(global.cluster)"\n',
    'modules/010-probe/hooks/greet.sh': hook(
      { configVersion: 'v1', beforeHelm: 1 },
      'echo "[{\\"op\\":\\"add\\",\\"path\\":\\"/probe/greeting\\",\\"value\\":\\"${PROBE_GREETING:-unset}\\"}]" > "$VALUES_JSON_PATCH_PATH"',
    ),
    'global/hooks/cluster.sh': hook(
      { configVersion: 'v1', beforeAll: 1 },
      'echo \'[{"op":"add","path":"/global/cluster","value":"from-global-hook"}]\' > "$VALUES_JSON_PATCH_PATH"',
    ),
  });
  chmodSync(path.join(dir, 'modules/010-probe/hooks/greet.sh'), 0o755);
  chmodSync(path.join(dir, 'global/hooks/cluster.sh'), 0o755);
  return dir;
}

describe('settings under every name addon-operator answers to (README "Settings")', () => {
  const dir = treeWithGlobalHook();

  it("builds from ADDON_OPERATOR_MODULES_DIR and SHELL_OPERATOR_HOOKS_DIR, and hooks see the operator's environment", async () => {
    const result = await kaddon(['build', '--run-hooks'], {
      ADDON_OPERATOR_MODULES_DIR: path.join(dir, 'modules'),
      SHELL_OPERATOR_HOOKS_DIR: path.join(dir, 'global'),
      PROBE_GREETING: 'hello from the Deployment',
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /greeting: hello from the Deployment\n/);
    assert.match(result.stdout, /cluster: from-global-hook\n/);
  });

  it('gives hooks only the allow-list with KADDON_HOOK_ENV=minimal', async () => {
    const result = await kaddon(['build', '--run-hooks', path.join(dir, 'modules')], {
      ADDON_OPERATOR_GLOBAL_HOOKS_DIR: path.join(dir, 'global'),
      PROBE_GREETING: 'hello from the Deployment',
      KADDON_HOOK_ENV: 'minimal',
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /greeting: unset\n/);
  });

  it('refuses to start the operator when the helm that HELM_BIN_PATH names cannot run, and warns of unsupported settings', async () => {
    const result = await kaddon(['operator'], {
      ADDON_OPERATOR_NAMESPACE: 'kaddon',
      HELM_BIN_PATH: '/nonexistent/helm',
      USE_NELM: 'true',
      DEBUG_UNIX_SOCKET: path.join(dir, 'debug.socket'),
    });
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /USE_NELM is set but kaddon does not support it and ignores it/);
    assert.match(
      result.stderr,
      /Error: setting 'HELM_BIN_PATH': helm '\/nonexistent\/helm' cannot be run \(ENOENT\)\. Point HELM_BIN_PATH/,
    );
  });

  it('refuses a Helm 2 setting by name, as addon-operator does', async () => {
    const result = await kaddon(['operator'], {
      ADDON_OPERATOR_NAMESPACE: 'kaddon',
      TILLER_MAX_HISTORY: '5',
    });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /setting 'TILLER_MAX_HISTORY': is a Helm 2 setting/);
  });
});
