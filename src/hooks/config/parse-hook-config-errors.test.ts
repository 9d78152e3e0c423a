import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadJqEngine } from '../../jq/jq-engine.ts';
import { HookConfigError, type HookIdentity } from '../hook-config.ts';
import { parseHookConfig, type ParseHookConfigOptions } from './parse-hook-config.ts';

const GLOBAL: HookIdentity = { name: 'hooks/foo.sh', owner: { kind: 'global' } };
const MODULE: HookIdentity = { name: 'hooks/bar.sh', owner: { kind: 'module', module: 'echo-server' } };

/** The message of the HookConfigError the output gets. */
function refusal(
  output: string,
  hook: HookIdentity = GLOBAL,
  options?: ParseHookConfigOptions,
): HookConfigError {
  try {
    parseHookConfig(output, hook, options);
  } catch (error: unknown) {
    assert.ok(error instanceof HookConfigError, `expected a HookConfigError, got ${String(error)}`);
    return error;
  }
  assert.fail(`expected ${JSON.stringify(output)} to be refused`);
}

function assertRefused(output: string, message: string, hook: HookIdentity = GLOBAL): void {
  assert.equal(refusal(output, hook).message, message);
}

const V1 = 'configVersion: v1\n';

describe('parseHookConfig refuses', () => {
  it('output that is not a config', () => {
    const empty = refusal('  \n');
    assert.equal(empty.message, "hook 'hooks/foo.sh': the hook printed nothing for --config.");
    assert.equal(empty.code, 'hook-config-unparsable');
    assert.match(
      refusal('configVersion: v1\nkubernetes: [kind: Pod').message,
      /is not valid JSON or YAML \(line \d+: /,
    );
    assertRefused('- onStartup: 1', "hook 'hooks/foo.sh': the --config output must be a map, not a list.");
  });

  it('a config version other than v1', () => {
    assertRefused(
      'configVersion: v2\nonStartup: 1',
      "hook 'hooks/foo.sh': configVersion: 'v2' is not one of v1.",
    );
    assertRefused(
      'configVersion: 1',
      "hook 'hooks/foo.sh': configVersion: must be the string v1, not the number 1.",
    );
  });

  it('a v1 config with nothing but its version', () => {
    assertRefused(
      V1,
      "hook 'hooks/foo.sh': a v1 config must declare a binding or settings besides configVersion.",
    );
  });

  it('unknown fields, naming what is accepted', () => {
    const error = refusal(`${V1}onShutdown: 1`);
    assert.equal(
      error.message,
      "hook 'hooks/foo.sh': unknown field 'onShutdown'; a global hook config accepts configVersion, onStartup, schedule, kubernetes, settings, kubernetesValidating, kubernetesMutating, kubernetesCustomResourceConversion, beforeAll, afterAll.",
    );
    assert.equal(error.code, 'hook-config-invalid');
    assert.equal(error.field, '');
  });

  it('lifecycle bindings of the other kind of hook', () => {
    assertRefused(
      `${V1}beforeAll: 1`,
      "hook 'hooks/bar.sh' in module 'echo-server': beforeAll: a global hook binding; module hooks accept beforeHelm, afterHelm, beforeDeleteHelm, afterDeleteHelm.",
      MODULE,
    );
    assertRefused(
      `${V1}afterDeleteHelm: 1`,
      "hook 'hooks/foo.sh': afterDeleteHelm: a module hook binding; global hooks accept beforeAll, afterAll.",
    );
    assertRefused(
      'beforeHelm: 1',
      "hook 'hooks/foo.sh': beforeHelm: a module hook binding; global hooks accept beforeAll, afterAll.",
    );
  });

  it('ORDER values that are not integers, and negative lifecycle ORDERs', () => {
    assertRefused(
      `${V1}onStartup: "10"`,
      "hook 'hooks/foo.sh': onStartup: must be an integer, not a string.",
    );
    assertRefused(`${V1}onStartup: 1.5`, "hook 'hooks/foo.sh': onStartup: must be an integer, not 1.5.");
    assertRefused(
      `${V1}beforeHelm: -1`,
      "hook 'hooks/bar.sh' in module 'echo-server': beforeHelm: must be an integer of 0 or more, not -1.",
      MODULE,
    );
  });

  it('badly shaped binding lists', () => {
    assertRefused(
      `${V1}kubernetes: []`,
      "hook 'hooks/foo.sh': kubernetes: must have at least 1 item; leave the field out instead.",
    );
    assertRefused(
      `${V1}kubernetes: {kind: Pod}`,
      "hook 'hooks/foo.sh': kubernetes: must be a list, not a map.",
    );
    assertRefused(
      `${V1}schedule: ["* * * * *"]`,
      "hook 'hooks/foo.sh': schedule[0]: must be a map, not a string.",
    );
    assertRefused(
      `${V1}kubernetesValidating: {name: x}`,
      "hook 'hooks/foo.sh': kubernetesValidating: must be a list, not a map.",
    );
  });

  it('kubernetes bindings without a kind, or with fields v1 does not know', () => {
    assertRefused(
      `${V1}kubernetes: [{name: pods}]`,
      "hook 'hooks/foo.sh': kubernetes[0]: 'kind' is required.",
    );
    assertRefused(
      `${V1}kubernetes: [{kind: ""}]`,
      "hook 'hooks/foo.sh': kubernetes[0].kind: must name a kind, e.g. Pod or deployments.",
    );
    assert.match(
      refusal(`${V1}kubernetes: [{kind: Pod, mode: v0}]`).message,
      /^hook 'hooks\/foo.sh': kubernetes\[0\]: unknown field 'mode'; a kubernetes binding accepts name, apiVersion, kind, /,
    );
  });

  it('watch events that do not exist', () => {
    const error = refusal(`${V1}kubernetes: [{kind: Pod, executeHookOnEvent: [Added, Updated]}]`);
    assert.equal(
      error.message,
      "hook 'hooks/foo.sh': kubernetes[0].executeHookOnEvent[1]: 'Updated' is not one of Added, Modified, Deleted.",
    );
    assert.equal(error.field, 'kubernetes[0].executeHookOnEvent[1]');
    assertRefused(
      `${V1}kubernetes: [{kind: Pod, watchEvent: [add]}]`,
      "hook 'hooks/foo.sh': kubernetes[0].watchEvent[0]: 'add' is not one of Added, Modified, Deleted.",
    );
  });

  it('options of the wrong type', () => {
    assertRefused(
      `${V1}kubernetes: [{kind: Pod, executeHookOnSynchronization: "false"}]`,
      "hook 'hooks/foo.sh': kubernetes[0].executeHookOnSynchronization: must be true or false, not a string.",
    );
    assertRefused(
      `${V1}kubernetes: [{kind: Pod, queue: 5}]`,
      "hook 'hooks/foo.sh': kubernetes[0].queue: must be a string, not the number 5.",
    );
  });

  it('an apiVersion that is not group/version', () => {
    assertRefused(
      `${V1}kubernetes: [{kind: Pod, apiVersion: a/b/c}]`,
      "hook 'hooks/foo.sh': kubernetes[0].apiVersion: 'a/b/c' is not a group/version such as v1 or apps/v1.",
    );
  });

  it('selectors Kubernetes would refuse', () => {
    const pod = (selector: string): string => `${V1}kubernetes:\n- kind: Pod\n  ${selector}`;
    assertRefused(
      pod(
        'nameSelector: {matchNames: [a]}\n  fieldSelector: {matchExpressions: [{field: metadata.name, operator: "=", value: b}]}',
      ),
      "hook 'hooks/foo.sh': kubernetes[0].fieldSelector: a 'metadata.name' expression and nameSelector.matchNames are mutually exclusive.",
    );
    assertRefused(
      pod('nameSelector: {}'),
      "hook 'hooks/foo.sh': kubernetes[0].nameSelector: 'matchNames' is required.",
    );
    assertRefused(
      pod('labelSelector: {}'),
      "hook 'hooks/foo.sh': kubernetes[0].labelSelector: must have matchLabels or matchExpressions.",
    );
    assertRefused(
      pod('labelSelector: {matchExpressions: [{key: tier, operator: Equals, values: [a]}]}'),
      "hook 'hooks/foo.sh': kubernetes[0].labelSelector.matchExpressions[0].operator: 'Equals' is not one of In, NotIn, Exists, DoesNotExist.",
    );
    assertRefused(
      pod('labelSelector: {matchExpressions: [{key: tier, operator: In}]}'),
      "hook 'hooks/foo.sh': kubernetes[0].labelSelector.matchExpressions[0].values: must list at least one value for operator In.",
    );
    assertRefused(
      pod('labelSelector: {matchExpressions: [{key: tier, operator: Exists, values: [a]}]}'),
      "hook 'hooks/foo.sh': kubernetes[0].labelSelector.matchExpressions[0].values: must be empty for operator Exists.",
    );
    assertRefused(
      pod('labelSelector: {matchLabels: {-bad: x}}'),
      "hook 'hooks/foo.sh': kubernetes[0].labelSelector.matchLabels[\"-bad\"]: '-bad' is not a valid label key.",
    );
    assertRefused(
      pod('labelSelector: {matchExpressions: [{key: tier, operator: In, values: [ok, "not ok"]}]}'),
      "hook 'hooks/foo.sh': kubernetes[0].labelSelector.matchExpressions[0].values[1]: 'not ok' is not a valid label value.",
    );
    assertRefused(
      pod('fieldSelector: {matchExpressions: [{field: status.phase, operator: In, value: Running}]}'),
      "hook 'hooks/foo.sh': kubernetes[0].fieldSelector.matchExpressions[0].operator: 'In' is not one of =, ==, Equals, !=, NotEquals.",
    );
    assertRefused(
      pod('fieldSelector: {matchExpressions: [{field: status.phase, operator: Equals}]}'),
      "hook 'hooks/foo.sh': kubernetes[0].fieldSelector.matchExpressions[0]: 'value' is required.",
    );
    assertRefused(
      pod('namespace: {}'),
      "hook 'hooks/foo.sh': kubernetes[0].namespace: must have nameSelector or labelSelector.",
    );
  });

  it('includeSnapshotsFrom naming no kubernetes binding, or several', () => {
    const error = refusal(`${V1}kubernetes: [{name: pods, kind: Pod, includeSnapshotsFrom: [cms]}]`);
    assert.equal(
      error.message,
      "hook 'hooks/foo.sh': kubernetes[0].includeSnapshotsFrom[0]: 'cms' is not the name of a kubernetes binding of this hook.",
    );
    assert.equal(error.hint, 'Its kubernetes bindings are pods.');
    assertRefused(
      `${V1}kubernetes: [{kind: Pod}, {kind: Node}]\nschedule: [{crontab: "* * * * *", includeSnapshotsFrom: [kubernetes]}]`,
      "hook 'hooks/foo.sh': schedule[0].includeSnapshotsFrom[0]: 'kubernetes' names 2 kubernetes bindings.",
    );
    assertRefused(
      `${V1}schedule: [{crontab: "* * * * *", includeSnapshotsFrom: []}]`,
      "hook 'hooks/foo.sh': schedule[0].includeSnapshotsFrom: must have at least 1 item; leave the field out instead.",
    );
  });

  it('a jqFilter jq cannot compile', async () => {
    const jq = await loadJqEngine();
    const error = refusal(`${V1}kubernetes: [{kind: Pod, jqFilter: ".foo | bar("}]`, GLOBAL, { jq });
    assert.equal(
      error.message,
      "hook 'hooks/foo.sh': kubernetes[0].jqFilter: '.foo | bar(' is not a valid jq filter.",
    );
    assert.match(error.hint, /^Correct the filter \(jq 1\.8 syntax\)\. jq says: jq: error: syntax error/);
  });

  it('schedules without a valid crontab, or with fields schedule does not have', () => {
    assertRefused(`${V1}schedule: [{name: x}]`, "hook 'hooks/foo.sh': schedule[0]: 'crontab' is required.");
    assertRefused(
      `${V1}schedule: [{crontab: "* * *"}]`,
      "hook 'hooks/foo.sh': schedule[0].crontab: '* * *' is not a valid crontab: expected 5 or 6 fields, found 3.",
    );
    assertRefused(
      `${V1}schedule: [{crontab: "61 * * * *"}]`,
      "hook 'hooks/foo.sh': schedule[0].crontab: '61 * * * *' is not a valid crontab: minutes field '61': 61 is outside 0-59.",
    );
    assert.match(
      refusal(`${V1}schedule: [{crontab: "* * * * *", executeHookOnStartup: true}]`).message,
      /schedule\[0\]: unknown field 'executeHookOnStartup'; a schedule binding accepts name, crontab, /,
    );
  });

  it('incomplete or contradictory settings', () => {
    assertRefused(
      `${V1}settings: {executionMinInterval: 3s}`,
      "hook 'hooks/foo.sh': settings: 'executionBurst' is required.",
    );
    assertRefused(
      `${V1}settings: {executionBurst: 1}`,
      "hook 'hooks/foo.sh': settings: 'executionMinInterval' (or its alias executionMinPeriod) is required.",
    );
    assertRefused(
      `${V1}settings: {executionMinInterval: 3s, executionMinPeriod: 3s, executionBurst: 1}`,
      "hook 'hooks/foo.sh': settings: executionMinInterval and executionMinPeriod are the same setting; give only one.",
    );
    assertRefused(
      `${V1}settings: {executionMinPeriod: 3 seconds, executionBurst: 1}`,
      "hook 'hooks/foo.sh': settings.executionMinPeriod: '3 seconds' is not a duration such as 3s or 1m30s (units ns, us, ms, s, m, h).",
    );
    assertRefused(
      `${V1}settings: {executionMinInterval: 720h, executionBurst: 1}`,
      "hook 'hooks/foo.sh': settings.executionMinInterval: '720h' is longer than 576h (24 days), the longest duration kaddon can time.",
    );
    assertRefused(
      `${V1}settings: {executionMinInterval: 3s, executionBurst: 0}`,
      "hook 'hooks/foo.sh': settings.executionBurst: must be an integer of 1 or more, not 0.",
    );
  });

  it('v0 configs with v1 fields, unknown events or no bindings', () => {
    const error = refusal('kubernetes: [{kind: Pod}]');
    assert.equal(
      error.message,
      "hook 'hooks/foo.sh': 'kubernetes' is a v1 field, but a config without configVersion is read in the legacy v0 format.",
    );
    assert.equal(error.hint, 'Add configVersion: v1 to the config.');
    assertRefused(
      'onKubernetesEvent: [{kind: Pod, event: [create]}]',
      "hook 'hooks/foo.sh': onKubernetesEvent[0].event[0]: 'create' is not one of add, update, delete.",
    );
    assertRefused('{}', "hook 'hooks/foo.sh': the config declares no bindings.");
    assertRefused(
      'onStartup: 1\nonShutdown: 1',
      "hook 'hooks/foo.sh': unknown field 'onShutdown'; a global hook config accepts onStartup, schedule, onKubernetesEvent, beforeAll, afterAll.",
    );
  });
});
