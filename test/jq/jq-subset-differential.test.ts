import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import type { JsonValue } from '../../src/core/json.ts';
import { compileFilter } from '../../src/jq/subset/compile-filter.ts';
import { JqWorker } from '../../src/jq/jq-worker.ts';

/**
 * The compiled jq subset (docs/hooks.md "jq") against jq 1.8 itself (jq-wasm): wherever the subset
 * answers, the outputs are the same, value for value and in order; where jq reports an error, the
 * subset leaves the evaluation to jq.
 */
const jq = new JqWorker();
after(() => {
  jq.stop();
});

/** jq's outputs as JSON text, or `error` when jq reports one. */
function jqAnswer(filter: string, input: JsonValue): string {
  try {
    return JSON.stringify(jq.evaluate(filter, input, 10_000));
  } catch {
    return 'error';
  }
}

/** Real kinds of filters: hooks' jqFilters and components' `when:` conditions. */
const CORPUS = [
  '.',
  '.metadata.name',
  '.metadata.namespace',
  '.metadata.labels',
  '.metadata.annotations',
  '.data',
  '.spec',
  '.status',
  '.status.phase',
  '.spec.nodeName',
  '.spec.replicas',
  '{name: .metadata.name}',
  '{name: .metadata.name, namespace: .metadata.namespace}',
  '{"name": .metadata.name, "labels": .metadata.labels}',
  '{nodeName: .metadata.name, taints: .spec.taints}',
  '{name: .metadata.name, ready: (.status.conditions // [] | map(select(.type == "Ready" and .status == "True")) | length > 0)}',
  '.spec.template.spec.containers[].image',
  '[.spec.template.spec.containers[].image]',
  '[.spec.containers[]?.name]',
  '.spec.containers | map(.name)',
  '.metadata.labels | keys',
  '.metadata.labels | length',
  '.metadata.labels["app.kubernetes.io/name"]',
  '.metadata.annotations["kaddon.dev/checksum"] // ""',
  '.metadata.labels.app // "none"',
  '.metadata | has("deletionTimestamp")',
  '.metadata.deletionTimestamp != null',
  '.status.conditions[]? | select(.type == "Ready") | .status',
  '.status.addresses[]? | select(.type == "InternalIP") | .address',
  'select(.status.phase == "Running") | .metadata.name',
  '.data | keys_unsorted',
  '.data | to_entries | map(.key)',
  '.data | to_entries | map("\\(.key)=\\(.value)") | join(",")',
  '.metadata.labels | with_entries(select(.key | startswith("app")))',
  '.metadata.ownerReferences // [] | map(.kind)',
  '.metadata.ownerReferences[0].name',
  '.spec.taints // [] | any(.effect == "NoSchedule")',
  '.spec.taints // [] | all(.effect != "NoExecute")',
  '.global.enabledModules | index("prometheus") != null',
  '.global.enabledModules | contains(["redis"])',
  '.echoServer.debug',
  '.echoServer.highAvailability',
  '.echoServer.replicas > 1',
  '.greeter.size == "large" or .greeter.size == "medium"',
  'if .spec.replicas > 1 then "ha" else "single" end',
  '.spec.replicas // 1 | tostring',
  '"\\(.metadata.namespace)/\\(.metadata.name)"',
  '.metadata.name | ascii_downcase',
  '.metadata.name | ltrimstr("kube-")',
  '.metadata.name | split("-") | first',
  '[.spec.containers[]?.resources.limits.memory] | unique',
  '.spec.containers // [] | sort_by(.name) | map(.name)',
  '.data | map_values(length)',
  '.items | length',
  '.status.containerStatuses // [] | map(.restartCount) | add // 0',
];

const OBJECTS: JsonValue[] = [
  {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'kube-proxy-x7',
      namespace: 'kube-system',
      labels: { app: 'proxy', 'app.kubernetes.io/name': 'proxy', tier: 'node' },
      annotations: { 'kaddon.dev/checksum': 'abc' },
      ownerReferences: [{ kind: 'DaemonSet', name: 'kube-proxy' }],
    },
    spec: {
      nodeName: 'node-1',
      containers: [
        { name: 'proxy', image: 'proxy:1.2', resources: { limits: { memory: '128Mi' } } },
        { name: 'sidecar', image: 'side:3', resources: { limits: { memory: '64Mi' } } },
      ],
    },
    status: {
      phase: 'Running',
      conditions: [
        { type: 'Ready', status: 'True' },
        { type: 'PodScheduled', status: 'True' },
      ],
      containerStatuses: [{ restartCount: 2 }, { restartCount: 0 }],
    },
  },
  {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'settings', namespace: 'web', labels: null },
    data: { 'log.level': 'debug', mode: 'fast', ünïcødé: 'ẞ 𝄞', empty: '' },
  },
  {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'node-1', labels: { zone: 'a' }, deletionTimestamp: '2026-11-25T00:00:00Z' },
    spec: { taints: [{ key: 'gpu', effect: 'NoSchedule' }], replicas: 3 },
    status: {
      addresses: [
        { type: 'InternalIP', address: '10.0.0.1' },
        { type: 'Hostname', address: 'n1' },
      ],
    },
  },
  { metadata: {}, spec: { replicas: 0 }, items: [1, 2, 3] },
  {
    global: { enabledModules: ['echo-server', 'redis', 'prometheus'] },
    echoServer: { debug: true, replicas: 2 },
  },
  { global: { enabledModules: [] }, greeter: { size: 'medium' }, echoServer: { highAvailability: false } },
  {},
  null,
  [1, 'two', null],
];

describe('compiled jq subset against jq 1.8', () => {
  it('gives what jq gives for a corpus of real filters on real-looking objects', () => {
    let answered = 0;
    for (const filter of CORPUS) {
      const compiled = compileFilter(filter);
      assert.ok(compiled, `in the subset: ${filter}`);
      for (const input of OBJECTS) {
        const ours = compiled(input);
        const theirs = jqAnswer(filter, input);
        if (ours === undefined) continue;
        answered++;
        assert.equal(JSON.stringify(ours), theirs, `${filter} on ${JSON.stringify(input)}`);
      }
    }
    // Most evaluations are answered by the subset; the rest are jq's errors, answered by jq.
    assert.ok(answered > CORPUS.length * OBJECTS.length * 0.6, `the subset answered ${String(answered)}`);
  });

  it('leaves to jq what is outside the subset', () => {
    for (const filter of [
      '.a | test("x")',
      'reduce .[] as $x (0; . + $x)',
      '.[] as $x | $x',
      'def f: 1; f',
      '.a = 1',
      '..',
      '@base64',
      '.a[1:2]',
      'limit(1; .[])',
      '$ENV.HOME',
    ])
      assert.equal(compileFilter(filter), undefined, filter);
  });

  it('gives what jq gives for generated filters on generated inputs', () => {
    const key = fc.constantFrom('a', 'b', 'name', 'items', 'x-y', 'ü');
    const path = fc
      .array(key, { minLength: 1, maxLength: 3 })
      .map((keys) => keys.map((name) => (/^[a-z]+$/.test(name) ? `.${name}` : `.["${name}"]`)).join(''));
    const literal = fc.oneof(
      fc.integer({ min: -5, max: 5 }).map(String),
      fc.constantFrom('null', 'true', 'false', '"a"', '""', '[]', '{}'),
    );
    const leaf = fc.oneof(path, literal, fc.constant('.'));
    const filter: fc.Arbitrary<string> = fc.letrec<{ expr: string }>((tie) => ({
      expr: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        fc.tuple(tie('expr'), tie('expr')).map(([a, b]) => `${a} | ${b}`),
        fc
          .tuple(
            tie('expr'),
            fc.constantFrom('==', '!=', '<', '>=', '+', '-', '//', 'and', 'or'),
            tie('expr'),
          )
          .map(([a, op, b]) => `(${a}) ${op} (${b})`),
        tie('expr').map((a) => `[${a}]`),
        fc.tuple(key, tie('expr')).map(([k, v]) => `{"${k}": (${v})}`),
        tie('expr').map((a) => `select(${a})`),
        tie('expr').map((a) => `(${a})?`),
        tie('expr').map((a) => `if ${a} then 1 else 2 end`),
        fc
          .tuple(
            tie('expr'),
            fc.constantFrom(
              'length',
              'keys',
              'type',
              'not',
              'tostring',
              'sort',
              'unique',
              'add',
              'first',
              'to_entries',
              '.[]',
              'map(type)',
              'has("a")',
              'contains("a")',
              'join("-")',
              'any',
              'min',
            ),
          )
          .map(([a, f]) => `${a} | ${f}`),
      ),
    })).expr;
    // jq-wasm reads a string input as JSON text; kaddon's inputs are objects (a Kubernetes object,
    // the values), so the top level is never a string here either.
    const input = fc
      .jsonValue({ maxDepth: 3 })
      .filter((value) => typeof value !== 'string')
      .map((value) => JSON.parse(JSON.stringify(value)) as JsonValue);
    let answered = 0;
    fc.assert(
      fc.property(
        filter,
        fc.oneof(
          input,
          fc.constant<JsonValue>({ a: { b: [1, 'x'] }, name: 'n', items: [{ a: 1 }, { a: 'z' }] }),
        ),
        (text, value) => {
          const ours = compileFilter(text)?.(value);
          if (ours === undefined) return;
          answered++;
          assert.equal(JSON.stringify(ours), jqAnswer(text, value), `${text} on ${JSON.stringify(value)}`);
        },
      ),
      { numRuns: 1500, seed: 20261125 },
    );
    assert.ok(answered > 500, `the subset answered ${String(answered)} of 1500`);
  });
});
