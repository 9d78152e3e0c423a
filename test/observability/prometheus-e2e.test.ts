import assert from 'node:assert/strict';
import { chmodSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { repoRoot } from '../repo-root.ts';
import { makeGitFixture, type GitFixture } from '../sources/git-fixture.ts';
import {
  eventually,
  startOperatorEnvironment,
  waitReady,
  type E2eOperator,
  type OperatorEnvironment,
} from '../operator/operator-e2e-kit.ts';
import { findPrometheusTool } from './prometheus-tools.ts';
import { startPrometheus, type PrometheusServer } from './prometheus-server.ts';
import { labelValuesQuery, promqlNames } from './promql-names.ts';

/**
 * Metrics the rules and the dashboard use that may have no series in this test: running helm calls
 * have series only while one runs. The check tolerates the absence of these names only.
 */
const METRICS_WITHOUT_SERIES_HERE = ['addon_operator_helm_operation_running_seconds'];

const NAMESPACE = 'kaddon-prometheus-e2e';
const MONITORING = path.join(repoRoot, 'deploy/components/monitoring');
const RULES_FILE = path.join(MONITORING, 'kaddon-alerts.rules.yaml');
const DASHBOARD_FILE = path.join(MONITORING, 'kaddon-dashboard.json');
const DEADLINE_MS = 60_000;

const prometheusBinary = findPrometheusTool('prometheus');

let env: OperatorEnvironment;
let repo: GitFixture;
let operator: E2eOperator;
let prometheus: PrometheusServer;
/** What `before` started, stopped by `after` in reverse, however far `before` got. */
const started: (() => Promise<void> | void)[] = [];

/** app's beforeHelm hook: writes a value, or fails when `fail`. */
const appHook = (fail: boolean): string => `#!/bin/bash
if [ "$1" = "--config" ]; then echo '{"configVersion":"v1","beforeHelm":10}'; exit 0; fi
${fail ? 'echo "e2e: app is broken on purpose" >&2; exit 1' : ''}
echo '[{"op":"add","path":"/app/fromHook","value":"yes"}]' > "$VALUES_JSON_PATCH_PATH"
`;

/** A global hook that runs at start and fails every 2 s in a queue of its own (main goes on). */
const GLOBAL_HOOK = `#!/bin/bash
if [ "$1" = "--config" ]; then
  echo '{"configVersion":"v1","onStartup":1,"schedule":[{"name":"fail","crontab":"*/2 * * * * *","queue":"failing"}]}'
  exit 0
fi
if grep -q Schedule "$BINDING_CONTEXT_PATH"; then echo "e2e: failing on purpose" >&2; exit 1; fi
`;

const TREE = {
  'modules/values.yaml': 'global: {}\nappEnabled: true\n',
  'modules/010-app/values.yaml': 'app:\n  fromHook: "no"\n',
  'modules/010-app/kustomization.yaml': `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: ${NAMESPACE}\nresources:\n- configmap.yaml\n`,
  'modules/010-app/configmap.yaml':
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  hook: $(app.fromHook)\n',
};

function writeHooks(fail: boolean): void {
  repo.write({ 'modules/010-app/hooks/mark.sh': appHook(fail), 'global-hooks/hooks/fail.sh': GLOBAL_HOOK });
  const top = repo.git('rev-parse', '--show-toplevel');
  chmodSync(path.join(top, 'modules/010-app/hooks/mark.sh'), 0o755);
  chmodSync(path.join(top, 'global-hooks/hooks/fail.sh'), 0o755);
}

before(async () => {
  if (prometheusBinary.skip !== false) return;
  env = await startOperatorEnvironment({ namespace: NAMESPACE, prefix: 'prometheus-e2e' });
  started.push(() => env.stop());
  repo = makeGitFixture('prometheus-e2e');
  started.push(() => {
    repo.remove();
  });
  repo.write(TREE);
  writeHooks(false);
  repo.commit('initial');
  operator = env.startOperator({
    modulesDir: path.join(env.tree.root, 'not-used'),
    forceKillAfterDelay: 30_000,
    extraEnv: {
      MODULES_GIT_URL: repo.fileUrl,
      MODULES_GIT_SUBPATH: 'modules',
      MODULES_GIT_POLL_INTERVAL: '1s',
      MODULES_GIT_CACHE_DIR: path.join(env.tree.root, 'git-cache'),
    },
  });
  prometheus = await startPrometheus({
    binary: prometheusBinary.path!,
    targets: [`127.0.0.1:${String(env.port)}`],
    ruleFiles: [RULES_FILE],
  });
  started.push(() => prometheus.stop());
});

after(async () => {
  for (const stop of started.reverse()) await stop();
});

interface Series {
  readonly [label: string]: string;
}
interface Alert {
  readonly labels: Series;
  readonly state: string;
}
interface RuleGroups {
  readonly groups: readonly {
    readonly rules: readonly {
      readonly name: string;
      readonly health: string;
      readonly lastError?: string;
    }[];
  }[];
}

function waitFor<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  return eventually(operator, what, check, DEADLINE_MS);
}

/** Every PromQL expression of the rules file and the dashboard, with where it comes from. */
function expressions(): { where: string; expr: string; label?: string }[] {
  const rules = parse(readFileSync(RULES_FILE, 'utf8')) as {
    groups: { rules: { alert: string; expr: string }[] }[];
  };
  const dashboard = JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as {
    panels: { title: string; targets?: { expr: string }[] }[];
    templating: { list: { name: string; query?: { query: string } }[] };
  };
  return [
    ...rules.groups.flatMap((group) =>
      group.rules.map((rule) => ({ where: `alert ${rule.alert}`, expr: rule.expr })),
    ),
    ...dashboard.panels.flatMap((panel) =>
      (panel.targets ?? []).map((target) => ({ where: `panel '${panel.title}'`, expr: target.expr })),
    ),
    ...dashboard.templating.list.flatMap((variable) => {
      const query = labelValuesQuery(variable.query?.query ?? '');
      return query
        ? [{ where: `variable $${variable.name}`, expr: query.expression, label: query.label }]
        : [];
    }),
  ];
}

/** The label names of every series of `metric` Prometheus holds. */
async function labelNames(metric: string): Promise<Set<string> | undefined> {
  const series = await prometheus.api<Series[]>('series', {
    'match[]': `{__name__="${metric}"}`,
    start: String(Date.now() / 1000 - 600),
  });
  return series.length === 0 ? undefined : new Set(series.flatMap((labels) => Object.keys(labels)));
}

/** What no expression may rely on: a metric kaddon does not expose, or a label its series lack. */
async function problems(): Promise<string[]> {
  const found: string[] = [];
  const cache = new Map<string, Set<string> | undefined>();
  const labelsOf = async (metric: string): Promise<Set<string> | undefined> => {
    if (!cache.has(metric)) cache.set(metric, await labelNames(metric));
    return cache.get(metric);
  };
  for (const { where, expr, label } of expressions()) {
    const names = promqlNames(expr);
    const known = new Set<string>();
    for (const { metric, labels } of names.selectors) {
      const exposed = await labelsOf(metric);
      if (exposed === undefined) {
        // Its series exist only while a helm call runs, which a scrape may or may not catch.
        if (METRICS_WITHOUT_SERIES_HERE.includes(metric)) continue;
        found.push(`${where}: ${metric} is not exposed by kaddon`);
        continue;
      }
      for (const name of exposed) known.add(name);
      for (const name of labels)
        if (!exposed.has(name)) found.push(`${where}: ${metric} has no label ${name}`);
    }
    const tolerated = names.selectors.some(({ metric }) => METRICS_WITHOUT_SERIES_HERE.includes(metric));
    for (const name of [...names.grouping, ...(label ? [label] : [])])
      if (!known.has(name) && !tolerated) found.push(`${where}: no metric of it has the label ${name}`);
  }
  return [...new Set(found)];
}

describe(
  'the monitoring component against a real Prometheus scraping kaddon operator',
  { skip: prometheusBinary.skip },
  () => {
    it('evaluates every rule and dashboard expression', async () => {
      await waitReady(operator, env.port, DEADLINE_MS);
      await waitFor('kaddon scraped', async () => {
        const up = await prometheus.api<{ result: { value: [number, string] }[] }>('query', {
          query: 'up{job="kaddon"}',
        });
        return up.result[0]?.value[1] === '1' ? true : undefined;
      });
      for (const { where, expr } of expressions()) {
        const query = expr.replaceAll('$__rate_interval', '1m').replace(/\$\w+/gu, '.*');
        await prometheus.api('query', { query }).catch((error: unknown) => {
          assert.fail(`${where}: ${String(error)}`);
        });
      }
    });

    it('sees a broken module: its alert goes pending', async () => {
      writeHooks(true);
      repo.commit('break app');
      const alert = await waitFor('KaddonModuleRunFailing pending for app', async () => {
        const { alerts } = await prometheus.api<{ alerts: Alert[] }>('alerts');
        return alerts.find(
          (candidate) =>
            candidate.labels.alertname === 'KaddonModuleRunFailing' && candidate.labels.module === 'app',
        );
      });
      assert.equal(alert.state, 'pending', 'pending: the rule waits 15 minutes before it fires');
    });

    it('every rule evaluates without an error', async () => {
      const { groups } = await prometheus.api<RuleGroups>('rules');
      const rules = groups.flatMap((group) => group.rules);
      assert.ok(rules.length > 0);
      assert.deepEqual(
        rules
          .filter((rule) => rule.health !== 'ok')
          .map((rule) => `${rule.name}: ${rule.health} ${rule.lastError ?? ''}`),
        [],
      );
    });

    it('names only metrics and labels kaddon exposes, in every rule and every dashboard panel', async () => {
      // Counters such as the hook error counters appear with their first increment: wait for them.
      let last: string[] = [];
      await waitFor('every metric of the rules and the dashboard', async () => {
        last = await problems();
        return last.length === 0 ? true : undefined;
      }).catch(() => undefined);
      assert.deepEqual(last, []);
    });
  },
);
