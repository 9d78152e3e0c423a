import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { JsonObject } from '../../src/core/json.ts';
import { ChartRenderer } from '../../src/delivery/helm/chart-renderer.ts';
import { HelmError } from '../../src/delivery/helm/helm-error.ts';
import { descendants } from '../processes.ts';
import { repoRoot } from '../repo-root.ts';
import {
  bothRenderers,
  ensureRenderer,
  outcome,
  releaseName,
  rendererHelmVersion,
} from './reference-helm.ts';

/**
 * The chart renderer against `helm template` of the same Helm version (docs/delivery.md "Chart
 * modules without a process per render"): for every chart of test/charts/corpus/ and the example
 * chart module, with the chart's own values and with values that change what it renders, the
 * renderer prints what helm prints, byte for byte; where helm refuses, the renderer refuses with
 * the same words on stderr.
 */
const corpus = path.join(repoRoot, 'test', 'charts', 'corpus');
const charts: [string, string][] = [
  ...readdirSync(corpus)
    .sort()
    .map((name): [string, string] => [name, path.join(corpus, name)]),
  ['examples/chart-module 010-web', path.join(repoRoot, 'examples', 'chart-module', 'modules', '010-web')],
];

/** Values that change what each chart renders; every chart is also rendered with none. */
const VALUES: Record<string, JsonObject> = {
  features: {
    replicas: 5,
    message: 'v={{ .Values.replicas }}',
    resources: { limits: { cpu: '1' } },
    list: [3, 1],
  },
  'library-user': { name: 'api', ports: [8080] },
  subcharts: { optional: { enabled: true }, child: { size: 9 }, global: { domain: 'kaddon.dev' } },
  'required-missing': { name: 'given' },
  fails: { allowed: true },
  schema: { replicas: 0 },
  'big-values': { items: { extra: { port: 1, enabled: true } } },
  // What addon-operator gives a chart module: the global section and the module's own.
  'examples/chart-module 010-web': {
    global: { registry: 'registry.example.com' },
    web: { replicas: 3, image: 'nginx:1.27', port: 8081 },
  },
};

const both = bothRenderers('chart-renderer');
const tmp = both.tmp;

describe(`the chart renderer against helm template ${rendererHelmVersion()}`, () => {
  for (const [name, dir] of charts)
    for (const values of [{}, VALUES[name]]) {
      if (values === undefined) continue;
      it(`${name}, ${Object.keys(values).length === 0 ? 'its own values' : `values ${JSON.stringify(values).slice(0, 60)}`}`, async () => {
        const release = releaseName(name);
        const theirs = await outcome(() => both.helm.template(release, 'corpus', dir, values));
        const ours = await outcome(() => both.renderer.template(release, 'corpus', dir, values));
        assert.deepEqual(ours, theirs);
      });
    }

  it('covers both outcomes: most charts render, the refusing ones are refused', async () => {
    const refused = [];
    for (const [name, dir] of charts)
      if ('stderr' in (await outcome(() => both.renderer.template('r', 'corpus', dir, {}))))
        refused.push(name);
    // The example chart module needs the global section addon-operator passes.
    assert.deepEqual(refused, [
      'application-type',
      'bad-yaml',
      'fails',
      'required-missing',
      'examples/chart-module 010-web',
    ]);
  });
});

/** A template that doubles its work at each of 40 levels: it does not end in practice. */
const NEVER_ENDS =
  '{{- define "boom" -}}{{- if lt (len .) 40 -}}{{ include "boom" (printf "%s%s" . "a") }}{{ include "boom" (printf "%s%s" . "b") }}{{- end -}}{{- end -}}\n';

describe('the chart renderer process', () => {
  const never = () =>
    tmp.write('never', {
      'Chart.yaml': 'apiVersion: v2\nname: never\nversion: 0.1.0\n',
      'templates/_boom.tpl': NEVER_ENDS,
      'templates/cm.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  x: "{{ include "boom" "" | len }}"\n',
    });
  const small = path.join(corpus, 'library-user');

  it('ends a render past its time, says so as for helm, and renders the next one in a new process', async () => {
    const bounded = new ChartRenderer({
      binary: ensureRenderer(),
      tmpRoot: tmp.root,
      templateTimeoutMs: 1000,
    });
    try {
      const first = await bounded.template('lib', 'ns', small, {});
      await assert.rejects(bounded.template('never', 'ns', never(), {}), (error: unknown) => {
        assert.ok(error instanceof HelmError);
        assert.equal(error.ended, 'timeout');
        assert.match(
          error.message,
          /^release 'never': helm template never .* did not finish within 1 s \(KADDON_HELM_TEMPLATE_TIMEOUT\)\.$/,
        );
        return true;
      });
      assert.equal(await bounded.template('lib', 'ns', small, {}), first);
    } finally {
      bounded.stop();
    }
  });

  it('gives each of many renders sent at once its own answer', async () => {
    const names = Array.from({ length: 30 }, (_, index) => `svc-${String(index)}`);
    const outputs = await Promise.all(
      names.map((name) => both.renderer.template('lib', 'ns', small, { name, ports: [1] })),
    );
    outputs.forEach((output, index) => {
      assert.match(output, new RegExp(`\\n  name: ${names[index] ?? ''}\\n`));
    });
  });

  it('replaces a renderer that died between renders', async () => {
    const before = await both.renderer.template('lib', 'ns', small, {});
    const pids = rendererPids();
    assert.equal(pids.length, 1, 'one renderer runs');
    for (const pid of pids) process.kill(pid, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(await both.renderer.template('lib', 'ns', small, {}), before);
    assert.notDeepEqual(rendererPids(), pids);
  });

  it('ends the render in progress when kaddon stops, and starts no other', async () => {
    const stop = new AbortController();
    const stopping = new ChartRenderer({
      binary: ensureRenderer(),
      tmpRoot: tmp.root,
      stopSignal: stop.signal,
    });
    const running = stopping.template('never', 'ns', never(), {});
    setTimeout(() => {
      stop.abort();
    }, 300);
    await assert.rejects(running, (error: unknown) => error instanceof HelmError && error.ended === 'stop');
    await assert.rejects(
      stopping.template('lib', 'ns', small, {}),
      (error: unknown) => error instanceof HelmError && /not run: kaddon is stopping/.test(error.message),
    );
  });
});

/** The renderers this test process started (their command name, as the kernel cuts it). */
function rendererPids(): number[] {
  return descendants(process.pid)
    .filter((entry) => entry.command.startsWith('kaddon-chart-r'))
    .map((entry) => entry.pid);
}
