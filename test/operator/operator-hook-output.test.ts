import assert from 'node:assert/strict';
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
} from './operator-e2e-kit.ts';

const NAMESPACE = 'kaddon-hook-output';
const MODULES = '/apis/kaddon.dev/v1alpha1/modules';
const DEADLINE_MS = 90_000;
const PASSWORD = 'hunter2-Sup3r-s3cret-value';
const PASSWORD_BASE64 = Buffer.from(PASSWORD).toString('base64');
// eslint-disable-next-line no-control-regex -- what must not reach a Kubernetes object
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/u;

/**
 * A hook that follows the Secret through a kubernetes binding and, at beforeHelm, prints its value,
 * its base64 and terminal escapes on stderr and fails; with `huge`, 50 MB of stderr before that.
 */
function leakyHook(huge: boolean): string {
  const config = {
    configVersion: 'v1',
    beforeHelm: 10,
    kubernetes: [
      {
        name: 'credentials',
        apiVersion: 'v1',
        kind: 'Secret',
        namespace: { nameSelector: { matchNames: [NAMESPACE] } },
        nameSelector: { matchNames: ['db-credentials'] },
      },
    ],
  };
  return `#!/usr/bin/env node
import { readFileSync, writeSync } from 'node:fs';
if (process.argv[2] === '--config') { console.log(${JSON.stringify(JSON.stringify(config))}); process.exit(0); }
const [context] = JSON.parse(readFileSync(process.env.BINDING_CONTEXT_PATH, 'utf8'));
if (context.binding !== 'beforeHelm') process.exit(0);
const secret = context.snapshots.credentials[0].object;
const value = Buffer.from(secret.data.password, 'base64').toString('utf8');
if (${String(huge)}) {
  const line = 'é'.repeat(1000) + '\\n';
  const block = line.repeat(500);
  for (let i = 0; i < 50; i++) writeSync(2, block);
}
writeSync(2, '\\u001b[31mERROR\\u001b[0m cannot connect: password=' + value + ' (' + secret.data.password + ')\\u0007\\u001b]0;pwned\\u0007 \\u202eélan\\r\\n');
process.exit(1);
`;
}

let env: OperatorEnvironment;
let operator: E2eOperator;

before(async () => {
  env = await startOperatorEnvironment({ namespace: NAMESPACE, prefix: 'hook-output' });
  await env.api.request('POST', `/api/v1/namespaces/${NAMESPACE}/secrets`, {
    body: {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db-credentials' },
      data: { password: PASSWORD_BASE64 },
    },
  });
  for (const [dir, module, huge] of [
    ['010-leaky', 'leaky', false],
    ['020-flood', 'flood', true],
  ] as const) {
    const root = env.tree.write(`modules/${dir}`, {
      ...stateModuleFiles(NAMESPACE, module, '  a: "1"\n'),
      'values.yaml': `${module}Enabled: true\n`,
      'hooks/leak.mjs': leakyHook(huge),
    });
    chmodSync(path.join(root, 'hooks/leak.mjs'), 0o755);
  }
  operator = env.startOperator({ forceKillAfterDelay: 20_000, extraEnv: { LOG_TYPE: 'json' } });
});
after(() => env.stop());

async function readyOf(module: string): Promise<JsonObject | undefined> {
  const object = await env.api.request('GET', `${MODULES}/${module}`);
  const status = isJsonObject(object.status) ? object.status : {};
  const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isJsonObject) : [];
  return conditions.find((condition) => condition.type === 'Ready');
}

async function hookFailedEvent(module: string): Promise<JsonObject | undefined> {
  const list = await env.api.request('GET', '/apis/events.k8s.io/v1/namespaces/default/events');
  const items = Array.isArray(list.items) ? list.items.filter(isJsonObject) : [];
  return items.find(
    (event) =>
      isJsonObject(event.regarding) && event.regarding.name === module && event.reason === 'HookFailed',
  );
}

/** The Module's HookFailed message and the HookFailed Event's note, once both are there. */
async function failureTexts(module: string): Promise<{ message: string; note: string }> {
  return eventually(
    operator,
    `module ${module}: HookFailed message and Event`,
    async () => {
      const ready = await readyOf(module);
      const event = await hookFailedEvent(module);
      const { message } = ready ?? {};
      const note = event?.note;
      if (ready?.reason !== 'HookFailed' || typeof message !== 'string' || typeof note !== 'string')
        return undefined;
      return { message, note };
    },
    DEADLINE_MS,
  );
}

function assertClean(text: string, maxBytes: number, what: string): void {
  assert.ok(!text.includes(PASSWORD), `${what} holds the Secret's value: ${text}`);
  assert.ok(!text.includes(PASSWORD_BASE64), `${what} holds the Secret's base64: ${text}`);
  assert.doesNotMatch(text, CONTROL, `${what} holds a control character: ${JSON.stringify(text)}`);
  assert.ok(Buffer.byteLength(text) <= maxBytes, `${what}: ${String(Buffer.byteLength(text))} bytes`);
}

describe("what of a hook's output leaves the operator (docs/hooks.md)", () => {
  it('a Secret printed on stderr with escapes reaches neither the Module, nor the Event, nor the log', async () => {
    const { message, note } = await failureTexts('leaky');
    assertClean(message, 4096, 'Module message');
    assertClean(note, 1024, 'Event note');
    assert.match(message, /ERROR cannot connect: password=\*\*\* \(\*\*\*\)/u);
    assert.match(note, /password=\*\*\*/u);
    assert.ok(!operator.output().includes(PASSWORD), 'the log holds the value');
    assert.ok(!operator.output().includes(PASSWORD_BASE64), 'the log holds the base64');
  });

  it('50 MB of stderr still gives the Module its message and a HookFailed Event, both bounded', async () => {
    const { message, note } = await failureTexts('flood');
    assertClean(message, 4096, 'Module message');
    assertClean(note, 1024, 'Event note');
    assert.match(message, /password=\*\*\*/u, 'the last line of stderr is the one shown');
  });
});
