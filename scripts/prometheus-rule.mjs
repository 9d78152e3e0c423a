// `node scripts/prometheus-rule.mjs [--check]`: writes deploy/components/monitoring/prometheusrule.yaml
// from kaddon-alerts.rules.yaml beside it, so the PrometheusRule and the plain rules file never
// drift apart (docs/monitoring.md). The rules are copied as text, comments and all, under `spec:`.
// With --check it writes nothing and exits 1 when the file on disk is not what it would write.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const dir = fileURLToPath(new URL('../deploy/components/monitoring/', import.meta.url));
const rulesFile = `${dir}kaddon-alerts.rules.yaml`;
const ruleFile = `${dir}prometheusrule.yaml`;

const HEADER = `# Written by scripts/prometheus-rule.mjs from kaddon-alerts.rules.yaml: edit that file and run
# \`node scripts/prometheus-rule.mjs\`. The prometheus-operator picks a PrometheusRule up when its
# labels match the Prometheus object's ruleSelector (kube-prometheus-stack: release=<its release>);
# add that label in your overlay (docs/monitoring.md).
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: kaddon
  labels:
    app.kubernetes.io/name: kaddon
spec:
`;

/** The rules file's lines from `groups:` on, indented under `spec:`. */
function prometheusRule(rulesText) {
  const lines = rulesText.split('\n');
  const start = lines.findIndex((line) => line.startsWith('groups:'));
  if (start < 0) throw new Error(`${rulesFile}: no top-level 'groups:' line`);
  const body = lines.slice(start).map((line) => (line === '' ? '' : `  ${line}`));
  return HEADER + body.join('\n');
}

const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } } });
const wanted = prometheusRule(readFileSync(rulesFile, 'utf8'));
if (!values.check) writeFileSync(ruleFile, wanted);
else if (readFileSync(ruleFile, 'utf8') !== wanted) {
  process.stderr.write(`${ruleFile} is not what ${rulesFile} makes: run node scripts/prometheus-rule.mjs\n`);
  process.exit(1);
}
