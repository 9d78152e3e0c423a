import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { JsonValue } from '../src/core/json.ts';
import { compileFilter } from '../src/jq/subset/compile-filter.ts';
import { JqWorker } from '../src/jq/jq-worker.ts';

/**
 * `npm run bench:jq -- [--seconds 1]`: evaluations a second of common hook filters and `when:`
 * conditions, kaddon's compiled subset (docs/hooks.md "jq") against jq 1.8 (jq-wasm in its worker
 * thread, what every filter cost before), on the same input in the same process. Each contender
 * runs for about `--seconds` per filter; the outputs are checked to be the same first.
 */
const { values } = parseArgs({ options: { seconds: { type: 'string', default: '1' } } });
const budgetMs = Number(values.seconds) * 1000;

const pod: JsonValue = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'web-7d9f8',
    namespace: 'shop',
    labels: { app: 'web', 'app.kubernetes.io/name': 'web', tier: 'frontend', 'pod-template-hash': '7d9f8' },
    annotations: { 'kaddon.dev/checksum': 'abc123' },
    ownerReferences: [{ kind: 'ReplicaSet', name: 'web-7d9f8' }],
  },
  spec: {
    nodeName: 'node-3',
    containers: [
      { name: 'web', image: 'registry.example.com/web:1.4.2', ports: [{ containerPort: 8080 }] },
      { name: 'proxy', image: 'envoy:1.30' },
    ],
  },
  status: {
    phase: 'Running',
    conditions: [
      { type: 'Initialized', status: 'True' },
      { type: 'Ready', status: 'True' },
    ],
  },
};
const values_: JsonValue = { global: { enabledModules: ['echo-server', 'redis', 'prometheus', 'greeter'] } };

const CASES: readonly { readonly filter: string; readonly input: JsonValue }[] = [
  { filter: '.metadata.name', input: pod },
  { filter: '.metadata.labels', input: pod },
  { filter: '{name: .metadata.name, labels: .metadata.labels, node: .spec.nodeName}', input: pod },
  { filter: '[.spec.containers[].image]', input: pod },
  {
    filter: '.status.conditions // [] | map(select(.type == "Ready" and .status == "True")) | length > 0',
    input: pod,
  },
  { filter: '.metadata.labels | to_entries | map("\\(.key)=\\(.value)") | join(",")', input: pod },
  { filter: '.global.enabledModules | index("prometheus") != null', input: values_ },
];

function rate(run: () => unknown): number {
  let count = 0;
  const start = performance.now();
  while (performance.now() - start < budgetMs) {
    for (let batch = 0; batch < 50; batch++) run();
    count += 50;
  }
  return count / ((performance.now() - start) / 1000);
}

const jq = new JqWorker();
console.log(`| filter | compiled evaluations/s | jq-wasm evaluations/s | ratio |`);
console.log(`| --- | ---: | ---: | ---: |`);
for (const { filter, input } of CASES) {
  const compiled = compileFilter(filter);
  const expected = JSON.stringify(jq.evaluate(filter, input, 10_000));
  if (!compiled || JSON.stringify(compiled(input)) !== expected)
    throw new Error(`the subset does not answer '${filter}' as jq does`);
  const ours = rate(() => compiled(input));
  const theirs = rate(() => jq.evaluate(filter, input, 10_000));
  const cell = (figure: number): string => Math.round(figure).toLocaleString('en-US');
  console.log(
    `| \`${filter.replaceAll('|', '\\|')}\` | ${cell(ours)} | ${cell(theirs)} | ${(ours / theirs).toFixed(0)}× |`,
  );
}
jq.stop();
