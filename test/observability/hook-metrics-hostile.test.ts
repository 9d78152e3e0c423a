import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isJsonObject, type JsonObject } from '../../src/core/json.ts';
import {
  eventually,
  startOperatorEnvironment,
  stateModuleFiles,
  type E2eOperator,
  type OperatorEnvironment,
} from '../operator/operator-e2e-kit.ts';
import { findPrometheusTool } from './prometheus-tools.ts';

const NAMESPACE = 'kaddon-hostile-metrics';
const MODULES = '/apis/kaddon.dev/v1alpha1/modules';
const DEADLINE_MS = 60_000;
const P = 'addon_operator_';
const promtool = findPrometheusTool('promtool');

/** Quotes, backslashes, a line feed, a carriage return, a bidi override and a lone surrogate. */
const HOSTILE = 'q"uo\\te\n\r\u202e\uD800é';
const HOOK_FILE = 'hooks/we"ird\\näme\u202e.sh';

/** What the hook writes to $METRICS_PATH: hostile lines, and two good ones that must still count. */
const METRIC_LINES = [
  { name: 'hostile_ok_total', action: 'add', value: 1, labels: { kind: 'fine "quoted" \\ value' } },
  { name: 'hostile_ok_gauge', set: 7 },
  { name: 'hostile_label', set: 1, labels: { v: 'a\nb' } },
  { name: 'hostile_label', set: 1, labels: { v: 'a\rb' } },
  { name: 'hostile_label', set: 1, labels: { v: 'a\u0000b' } },
  { name: 'hostile_label', set: 1, labels: { v: 'a\u202eb' } },
  { name: 'hostile_label', set: 1, labels: { v: 'a\uD800b' } },
  { name: 'hostile_label', set: 1, labels: { v: 'x'.repeat(10_000) } },
  { name: 'hostile_label', set: 1, labels: { v: '1"} 1\n# TYPE injected counter' } },
  { name: `${P}module_run_seconds_count`, set: 1 },
  { name: `${P}module_run_seconds_bucket`, add: 1 },
  { name: `${P}live_ticks`, add: 1 },
  { name: 'process_open_fds', set: 1 },
  { name: 'hostile_histogram', action: 'observe', value: 1, buckets: [1, 2], labels: { le: '1' } },
  { name: 'hostile_histogram2', action: 'observe', value: 1, buckets: [1, 2] },
  { name: 'hostile_histogram2_count', set: 3 },
];
/** Every line but three (two good ones and hostile_histogram2), and the line that is not JSON. */
const REFUSED = METRIC_LINES.length - 3 + 1;

let env: OperatorEnvironment;
let operator: E2eOperator;

before(async () => {
  env = await startOperatorEnvironment({ namespace: NAMESPACE, prefix: 'hostile-metrics' });
  const config = {
    configVersion: 'v1',
    schedule: [{ name: `bind${HOSTILE}`, crontab: '*/5 * * * * *', queue: `queue${HOSTILE}` }],
    beforeHelm: 10,
  };
  const lines = `${METRIC_LINES.map((line) => JSON.stringify(line)).join('\n')}\nnot json at all\n`;
  const dir = env.tree.write('modules/010-hostile', {
    ...stateModuleFiles(NAMESPACE, 'hostile', '  a: "1"\n'),
    'values.yaml': 'hostileEnabled: true\n',
    // A shell script: node refuses to load a file whose name holds a backslash.
    [HOOK_FILE]: [
      '#!/bin/sh',
      `if [ "$1" = --config ]; then cat <<'EOF'\n${JSON.stringify(config)}\nEOF\nexit 0; fi`,
      `cat > "$METRICS_PATH" <<'EOF'\n${lines}EOF`,
      '',
    ].join('\n'),
  });
  chmodSync(path.join(dir, HOOK_FILE), 0o755);
  operator = env.startOperator({ forceKillAfterDelay: 20_000, extraEnv: { LOG_TYPE: 'json' } });
});
after(() => env.stop());

async function scrape(): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${env.port}/metrics`);
  assert.equal(response.status, 200);
  return response.text();
}

/** The Module's Ready condition. */
async function readyOf(module: string): Promise<JsonObject | undefined> {
  const object = await env.api.request('GET', `${MODULES}/${module}`);
  const status = isJsonObject(object.status) ? object.status : {};
  const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isJsonObject) : [];
  return conditions.find((condition) => condition.type === 'Ready');
}

/** The value of the one sample line that starts with `prefix`. */
function valueAfter(text: string, prefix: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('hooks with hostile names writing hostile metrics (docs/hooks.md "Metrics from hooks")', () => {
  it(
    '/metrics passes promtool, the module stays Ready, the refused lines are counted',
    {
      skip: promtool.skip,
    },
    async () => {
      const text = await eventually(
        operator,
        'the schedule hook ran twice and its refused lines were counted',
        async () => {
          const scraped = await scrape();
          const refused = valueAfter(scraped, `${P}hook_metrics_rejected_total{module="hostile"`);
          return (refused ?? 0) >= 2 * REFUSED ? scraped : undefined;
        },
        DEADLINE_MS,
      );
      const check = spawnSync(promtool.path ?? 'promtool', ['check', 'metrics'], {
        input: text,
        encoding: 'utf8',
      });
      const findings = `${check.stdout}${check.stderr}`;
      // Status 3 is lint only (names addon-operator chose); 1 would be a scrape Prometheus refuses.
      assert.ok(check.status === 0 || check.status === 3, `promtool:\n${findings}`);
      assert.doesNotMatch(findings, /parsing error|second HELP|error while linting/u);

      // The good lines are served, the hostile ones are not; kaddon's own labels are cleaned.
      assert.match(
        text,
        /^hostile_ok_total\{hook="hooks\/we\\"ird\\\\n\u00e4me\uFFFD\.sh",module="hostile",kind="fine \\"quoted\\" \\\\ value"\} \d+$/mu,
      );
      assert.match(text, /^hostile_ok_gauge\{[^}]*\} 7$/mu);
      for (const refusedName of ['hostile_label', 'hostile_histogram', 'injected'])
        assert.doesNotMatch(text, new RegExp(`^(# TYPE |# HELP )?${refusedName}\\b`, 'mu'), refusedName);
      assert.doesNotMatch(text, /^# (?:TYPE|HELP) hostile_histogram2_count /mu);
      assert.equal(text.match(/^# HELP hostile_histogram2 /gmu)?.length, 1);
      assert.doesNotMatch(text, /^addon_operator_module_run_seconds_count\{hook=/mu);
      assert.equal(text.match(/^# HELP addon_operator_module_run_seconds /gmu)?.length, 1);
      // eslint-disable-next-line no-control-regex -- raw control characters must not reach the exposition
      assert.doesNotMatch(text, /[\u0000-\u0008\u000b-\u001f\u007f\u202e]/u);
      assert.match(text, /queue="queueq\\"uo\\\\te \uFFFD\uFFFD\uFFFDé"/u);

      // The Module object is written apart from the run (coalesced writes): wait for it.
      const ready = await eventually(
        operator,
        'the Module hostile is Ready',
        async () => {
          const condition = await readyOf('hostile').catch(() => undefined);
          return condition?.status === 'True' ? condition : undefined;
        },
        DEADLINE_MS,
      );
      assert.equal(ready.status, 'True', JSON.stringify(ready));
      assert.equal(valueAfter(text, `${P}module_run_errors_total{module="hostile"}`) ?? 0, 0);

      // One log line per run, however many lines were refused.
      const logLines = operator
        .output()
        .split('\n')
        .filter((line) => line.includes('hook metrics refused'));
      assert.ok(logLines.length >= 2);
      const first = JSON.parse(logLines[0] ?? '{}') as Record<string, unknown>;
      assert.equal(first.refused, REFUSED);
    },
  );
});
