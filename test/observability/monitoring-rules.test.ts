import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { repoRoot } from '../repo-root.ts';
import { findPrometheusTool } from './prometheus-tools.ts';

const COMPONENT = path.join(repoRoot, 'deploy/components/monitoring');
const RULES_FILE = path.join(COMPONENT, 'kaddon-alerts.rules.yaml');
const PROMTOOL_TESTS = path.join(repoRoot, 'test/observability/kaddon-alerts.promtool.yaml');

interface RulesFile {
  readonly groups: readonly {
    readonly name: string;
    readonly rules: readonly { readonly alert?: string }[];
  }[];
}

interface PromtoolTests {
  readonly tests: readonly {
    readonly alert_rule_test?: readonly {
      readonly alertname: string;
      readonly exp_alerts: readonly unknown[];
    }[];
  }[];
}

const promtool = findPrometheusTool('promtool');

function runPromtool(...args: string[]): void {
  const run = spawnSync(promtool.path!, args, { encoding: 'utf8' });
  assert.equal(run.status, 0, `promtool ${args.join(' ')}:\n${run.stdout}${run.stderr}`);
}

describe('deploy/components/monitoring: the alerts', { skip: promtool.skip }, () => {
  it('pass promtool check rules', () => {
    runPromtool('check', 'rules', RULES_FILE);
  });

  it('pass their promtool unit tests (test/observability/kaddon-alerts.promtool.yaml)', () => {
    runPromtool('test', 'rules', PROMTOOL_TESTS);
  });
});

describe('deploy/components/monitoring: one source for the rules', () => {
  const rules = parse(readFileSync(RULES_FILE, 'utf8')) as RulesFile;
  const alerts = rules.groups.flatMap((group) => group.rules.map((rule) => rule.alert ?? ''));

  it('the PrometheusRule holds the rules file, as scripts/prometheus-rule.mjs writes it', () => {
    const check = spawnSync(
      process.execPath,
      [path.join(repoRoot, 'scripts/prometheus-rule.mjs'), '--check'],
      {
        encoding: 'utf8',
      },
    );
    assert.equal(check.status, 0, check.stderr);
    const wrapped = parse(readFileSync(path.join(COMPONENT, 'prometheusrule.yaml'), 'utf8')) as {
      kind: string;
      spec: unknown;
    };
    assert.equal(wrapped.kind, 'PrometheusRule');
    assert.deepEqual(wrapped.spec, rules);
  });

  it('has a unit test of each alert firing and of it not firing', () => {
    const cases = (parse(readFileSync(PROMTOOL_TESTS, 'utf8')) as PromtoolTests).tests.flatMap(
      (test) => test.alert_rule_test ?? [],
    );
    for (const alert of alerts) {
      const mine = cases.filter((test) => test.alertname === alert);
      assert.ok(
        mine.some((test) => test.exp_alerts.length > 0),
        `${alert}: no case where it fires`,
      );
      assert.ok(
        mine.some((test) => test.exp_alerts.length === 0),
        `${alert}: no case where it stays quiet`,
      );
    }
  });

  it('every alert says what to look at', () => {
    for (const rule of rules.groups.flatMap((group) => group.rules)) {
      const { annotations } = rule as { annotations?: { summary?: string; description?: string } };
      assert.ok(annotations?.summary, `${rule.alert ?? ''}: no summary`);
      assert.match(
        annotations.description ?? '',
        /`kaddon |`kubectl |`helm /u,
        `${rule.alert ?? ''}: no command`,
      );
    }
  });
});
