import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ensureHelm } from '../cluster/ensure-helm.ts';
import { repoRoot } from '../repo-root.ts';
import { makeTempTree } from '../temp-tree.ts';
import { assertRefused, kaddon, leftIn } from './run-kaddon.ts';
import { childrenOf, isAlive } from '../processes.ts';

/**
 * Chart modules whose templates never finish or fail at length (docs/modules.md "Limits on input"):
 * `helm template` is bounded by KADDON_HELM_TEMPLATE_TIMEOUT, its error cut, and a `kaddon build`
 * stopped meanwhile leaves no helm running and no temp directory behind.
 */
const tmp = makeTempTree('chart-limits');
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

function chartTree(name: string, helper: string, include: string): string {
  return tmp.write(name, {
    'modules/values.yaml': 'boomEnabled: true\nboom:\n  x: 1\n',
    'modules/010-boom/templates/_helpers.tpl': helper,
    'modules/010-boom/templates/cm.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: boom\ndata:\n  x: "{{ ${include} }}"\n`,
  });
}

describe('chart modules that render for ever or fail at length', () => {
  // The chart renderer (the default) and `helm template` (KADDON_CHART_RENDERER=helm), each by the
  // command name the kernel keeps for it.
  for (const [renderer, command] of [
    ['native', 'kaddon-chart-r'],
    ['helm', 'helm'],
  ] as const)
    it(`ends the renderer and removes its temp files when kaddon build is sent SIGTERM mid-render (${renderer})`, async () => {
      const dir = chartTree(`sigterm-${renderer}`, EXPONENTIAL, 'include "boom" "" | len');
      const tmpRoot = mkdtempSync(path.join(tmpdir(), 'kaddon-chart-sigterm-'));
      try {
        const child = spawn(
          process.execPath,
          [path.join(repoRoot, 'bin/kaddon.js'), 'build', path.join(dir, 'modules'), '--helm-path', helmPath],
          {
            env: { ...process.env, TMPDIR: tmpRoot, KADDON_CHART_RENDERER: renderer },
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
        });
        const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
        const deadline = Date.now() + 60_000;
        let rendering: number | undefined;
        while (rendering === undefined) {
          assert.ok(Date.now() < deadline, `no ${command} process within 60 s: ${stderr}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
          rendering = childrenOf(child.pid ?? 0).find((process) => process.command.startsWith(command))?.pid;
        }
        assert.ok(
          leftIn(tmpRoot).some((name) => name.startsWith('kaddon-values-boom-')),
          'the chart renders',
        );
        child.kill('SIGTERM');
        assert.equal(await exited, 1, stderr);
        assert.match(stderr, /release 'boom': helm template .*was ended: kaddon is stopping/);
        assert.equal(isAlive(rendering), false, 'no renderer outlives kaddon');
        assert.deepEqual(leftIn(tmpRoot), [], 'no kaddon-values-* or kaddon-chart-* temp directory left');
      } finally {
        rmSync(tmpRoot, { recursive: true, force: true });
      }
    });

  it('stops helm template at KADDON_HELM_TEMPLATE_TIMEOUT, naming the module and the setting', async () => {
    const dir = chartTree('timeout', EXPONENTIAL, 'include "boom" "" | len');
    assertRefused(
      await kaddon(
        { KADDON_HELM_TEMPLATE_TIMEOUT: '2s' },
        'build',
        path.join(dir, 'modules'),
        '--helm-path',
        helmPath,
      ),
      /module 'boom': .*010-boom: helm template did not finish within 2 s \(KADDON_HELM_TEMPLATE_TIMEOUT\)/,
    );
  });

  it('quotes the start of an include that recurses, with the template location and the size cut', async () => {
    const dir = chartTree('recursion', '{{- define "r" -}}{{ include "r" . }}{{- end -}}\n', 'include "r" .');
    const outcome = await kaddon({}, 'build', path.join(dir, 'modules'), '--helm-path', helmPath);
    assertRefused(outcome, /010-boom\/templates\/cm.yaml:6:\d+: executing .*\(cut: the line holds \d+ KB\)/);
    assert.ok(
      outcome.stderr.length < 2_000,
      `a short message, not ${String(outcome.stderr.length)} characters`,
    );
  });

  it('refuses a named pipe inside a chart before helm would block on it', async () => {
    const dir = chartTree('fifo', '', '"x"');
    execFileSync('mkfifo', [path.join(dir, 'modules/010-boom/templates/pipe.yaml')]);
    assertRefused(
      await kaddon({}, 'build', path.join(dir, 'modules'), '--helm-path', helmPath),
      /010-boom\/templates\/pipe.yaml': is a named pipe \(FIFO\), not a regular file/,
    );
  });
});
