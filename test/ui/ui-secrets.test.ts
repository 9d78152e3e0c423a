import assert from 'node:assert/strict';
import { chmodSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isJsonObject } from '../../src/core/json.ts';
import {
  eventually,
  startOperatorEnvironment,
  stateModuleFiles,
  type E2eOperator,
  type OperatorEnvironment,
} from '../operator/operator-e2e-kit.ts';
import { CONFIG_MAP_READ, SECRETS_READ, signInUsers } from './ui-users.ts';

const NAMESPACE = 'kaddon-ui-secrets';
const MODULES = '/apis/kaddon.dev/v1alpha1/modules';
const DEADLINE_MS = 120_000;
const PASSWORD = 'Pw7-hJq2LmZx9-Tr4e';
/** A one-line Secret long enough that a cut of the line leaves pieces of it. */
const LONG = 'Zk3q9XvTn2Lw8RbYc5MfHa1JdPs7GuEo4KyWx6Qi0NtBv3CmSpZlUgDrFjTe8Ah2Yn5Kc9LwXq1Rb7Mo3VsGi6Pd4Ju0Ez';
const PEM_BODY = [
  'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj',
  'MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu',
  'NMoSfm76oqFvAp8Gy0iz5sxjZmSnXyCdPEovGhLa0VzMaQ8s+CLOyS56YyCFGeJZ',
];
const PEM = ['-----BEGIN PRIVATE KEY-----', ...PEM_BODY, '-----END PRIVATE KEY-----', ''].join('\n');
/** A value the schema marks x-kaddon-secret: shown only to who may get Secrets. */
const VAULT_PASSWORD = 'vault-Qz8-rT5mWp2';

/**
 * What each failing module's beforeHelm prints on stderr, as JavaScript over `s` (the Secrets'
 * decoded values by name): the inputs of the class tried.
 */
const LEAKS = {
  // A one-line Secret, plain and in base64, beside a multi-line one (a PEM key).
  plain: "`password=${s.password} (${Buffer.from(s.password).toString('base64')})\\nkey:\\n${s.pem}`",
  // A long Secret at the end of a line longer than the 2,048 characters kept: 48 of it survive the cut.
  cut48: "'x'.repeat(2000) + s.long",
  // The same, cut 8 characters into the Secret.
  cut8: "'x'.repeat(2040) + s.long",
  // The Secret folded into 40-character lines, and a slice of its base64.
  fold: "s.long.match(/.{1,40}/g).join('\\n') + '\\nb64 ' + Buffer.from(s.long).toString('base64').slice(7, 70)",
} as const;

/**
 * A hook that follows the Secret and prints `leak` then fails: at beforeHelm, or with `queue` on
 * the Secret's changes, run in that queue (where a failed task keeps its last error).
 */
function leakyHook(leak: string, queue?: string): string {
  const config = {
    configVersion: 'v1',
    ...(queue === undefined ? { beforeHelm: 10 } : {}),
    kubernetes: [
      {
        ...(queue === undefined ? {} : { queue, executeHookOnSynchronization: false }),
        name: 'credentials',
        apiVersion: 'v1',
        kind: 'Secret',
        namespace: { nameSelector: { matchNames: [NAMESPACE] } },
        nameSelector: { matchNames: ['credentials'] },
      },
    ],
  };
  return `#!/usr/bin/env node
import { readFileSync, writeSync } from 'node:fs';
if (process.argv[2] === '--config') { console.log(${JSON.stringify(JSON.stringify(config))}); process.exit(0); }
const [context] = JSON.parse(readFileSync(process.env.BINDING_CONTEXT_PATH, 'utf8'));
if (context.binding !== ${JSON.stringify(queue === undefined ? 'beforeHelm' : 'credentials')} || context.type === 'Synchronization') process.exit(0);
const data = (context.object ?? context.snapshots.credentials[0].object).data;
const s = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
writeSync(2, ${leak} + '\\n');
process.exit(1);
`;
}

let env: OperatorEnvironment;
let operator: E2eOperator;
let base: string;
const tokens: Record<'viewer' | 'operator' | 'admin', string> = { viewer: '', operator: '', admin: '' };

before(async () => {
  env = await startOperatorEnvironment({ namespace: NAMESPACE, prefix: 'ui-secrets' });
  await env.api.request('POST', `/api/v1/namespaces/${NAMESPACE}/secrets`, {
    body: {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'credentials' },
      stringData: { password: PASSWORD, long: LONG, pem: PEM },
    },
  });
  let order = 10;
  for (const [module, leak] of Object.entries(LEAKS)) {
    const root = env.tree.write(`modules/0${String(order++)}-${module}`, {
      ...stateModuleFiles(NAMESPACE, module, '  a: "1"\n'),
      'values.yaml': `${module}Enabled: true\n`,
      'hooks/leak.mjs': leakyHook(leak),
    });
    chmodSync(path.join(root, 'hooks/leak.mjs'), 0o755);
  }
  const queued = env.tree.write('modules/080-queued', {
    ...stateModuleFiles(NAMESPACE, 'queued', '  a: "1"\n'),
    'values.yaml': 'queuedEnabled: true\n',
    'hooks/leak.mjs': leakyHook(LEAKS.plain, 'secret-events'),
  });
  chmodSync(path.join(queued, 'hooks/leak.mjs'), 0o755);
  env.tree.write('modules/090-vault', {
    ...stateModuleFiles(NAMESPACE, 'vault', '  a: "1"\n'),
    'values.yaml': `vaultEnabled: true\nvault:\n  user: admin\n  password: ${VAULT_PASSWORD}\n`,
    'openapi/values.yaml': [
      'type: object',
      'properties:',
      '  user: {type: string}',
      '  password: {type: string, x-kaddon-secret: true}',
      '',
    ].join('\n'),
  });
  await grantTokens();
  operator = env.startOperator({ forceKillAfterDelay: 20_000, extraEnv: { LOG_TYPE: 'json' } });
  base = `http://127.0.0.1:${String(env.port)}`;
});
after(() => env.stop());

/**
 * ServiceAccounts: `viewer` may get modules; `operator` also the operator's ConfigMap; `admin`
 * also Secrets in the operator's namespace.
 */
async function grantTokens(): Promise<void> {
  Object.assign(
    tokens,
    await signInUsers(env.api, NAMESPACE, {
      viewer: { modules: true },
      operator: { modules: true, rules: [CONFIG_MAP_READ] },
      admin: { modules: true, rules: [CONFIG_MAP_READ, SECRETS_READ] },
    }),
  );
}

async function get(apiPath: string, token: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`${base}${apiPath}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: await response.text() };
}

/** The pieces no output may hold: 8 characters in a row of a secret's random part, plain or in base64. */
const FORBIDDEN = [PASSWORD, LONG, ...PEM_BODY].flatMap((secret) => {
  const pieces: string[] = [];
  for (const form of [secret, Buffer.from(secret).toString('base64')])
    for (let i = 0; i + 8 <= form.length; i++) pieces.push(form.slice(i, i + 8));
  return pieces;
});

function assertMasked(text: string, what: string): void {
  const piece = FORBIDDEN.find((forbidden) => text.includes(forbidden));
  assert.equal(
    piece,
    undefined,
    `${what} holds a piece of a Secret: ${String(piece)}\n${text.slice(0, 3000)}`,
  );
}

/** The Ready message and HookFailed Event note of a failing module, once both are there. */
async function failureTexts(module: string): Promise<string[]> {
  return eventually(
    operator,
    `module ${module}: HookFailed message and Event`,
    async () => {
      const object = await env.api.request('GET', `${MODULES}/${module}`);
      const status = isJsonObject(object.status) ? object.status : {};
      const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isJsonObject) : [];
      const ready = conditions.find((condition) => condition.type === 'Ready');
      const list = await env.api.request('GET', '/apis/events.k8s.io/v1/namespaces/default/events');
      const items = Array.isArray(list.items) ? list.items.filter(isJsonObject) : [];
      const event = items.find(
        (item) =>
          isJsonObject(item.regarding) && item.regarding.name === module && item.reason === 'HookFailed',
      );
      if (
        ready?.reason !== 'HookFailed' ||
        typeof ready.message !== 'string' ||
        typeof event?.note !== 'string'
      )
        return undefined;
      return [ready.message, event.note];
    },
    DEADLINE_MS,
  );
}

describe('secrets on every output path (docs/hooks.md, docs/ui.md "Who may see what")', () => {
  it('masks one-line, multi-line, cut and folded Secrets in the Module status, Events, the page and the log', async () => {
    const leaks: string[] = [];
    const check = (text: string, what: string): void => {
      const piece = FORBIDDEN.find((forbidden) => text.includes(forbidden));
      if (piece !== undefined) leaks.push(`${what}: ${piece}`);
    };
    for (const module of Object.keys(LEAKS)) {
      const [message = '', note = ''] = await failureTexts(module);
      check(message, `module ${module}: Ready message`);
      check(note, `module ${module}: HookFailed note`);
      check((await get(`/ui/api/modules/${module}`, tokens.operator)).body, `module ${module}: its page`);
    }
    check(operator.output(), 'the operator log');
    assert.deepEqual(leaks, []);
    const [plain = ''] = await failureTexts('plain');
    assert.match(plain, /password=\*\*\* \(\*\*\*\)/u);
    assert.match(plain, /key:\n\*\*\*$/u);
  });

  it("gives the queues masked to who may get the ConfigMap, and without hooks' errors to who may only get modules", async () => {
    await eventually(operator, 'module queued Ready', async () => {
      const object = await env.api.request('GET', `${MODULES}/queued`);
      const status = isJsonObject(object.status) ? object.status : {};
      const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isJsonObject) : [];
      return conditions.some((c) => c.type === 'Ready' && c.status === 'True') ? true : undefined;
    });
    // A change of the Secret runs the hook in its queue, where it fails and is retried.
    await env.api.request('PATCH', `/api/v1/namespaces/${NAMESPACE}/secrets/credentials`, {
      body: { metadata: { labels: { changed: 'yes' } } },
      contentType: 'application/merge-patch+json',
    });
    const failed = await eventually(
      operator,
      'a failed task with its last error in the queues',
      async () => {
        const { body } = await get('/ui/api/queues', tokens.operator);
        return body.includes('"lastError"') ? body : undefined;
      },
      DEADLINE_MS,
    );
    assertMasked(failed, 'the queues, to who may get the ConfigMap');
    const { status, body } = await get('/ui/api/queues', tokens.viewer);
    assert.equal(status, 200);
    assert.doesNotMatch(body, /"lastError"/u);
    assert.doesNotMatch(body, /stderr|password=/u);
    assertMasked(body, 'the queues, to who may only get modules');
    for (const token of [tokens.viewer, tokens.operator])
      for (const apiPath of [
        '/ui/api/overview',
        '/ui/api/modules',
        ...Object.keys(LEAKS).map((m) => `/ui/api/modules/${m}`),
      ])
        assertMasked((await get(apiPath, token)).body, apiPath);
  });

  it("shows a value marked x-kaddon-secret only to who may get Secrets in the operator's namespace", async () => {
    const valuesOf = async (token: string): Promise<unknown> => {
      const { status, body } = await get('/ui/api/modules/vault/values', token);
      assert.equal(status, 200, body);
      return JSON.parse(body);
    };
    assert.equal((await get('/ui/api/modules/vault/values', tokens.viewer)).status, 403);
    assert.deepEqual(await valuesOf(tokens.operator), { user: 'admin', password: '***' });
    assert.deepEqual(await valuesOf(tokens.admin), { user: 'admin', password: VAULT_PASSWORD });
    for (const module of Object.keys(LEAKS)) {
      const { body } = await get(`/ui/api/modules/${module}`, tokens.operator);
      assert.ok(!body.includes(VAULT_PASSWORD), `module ${module}`);
    }
  });
});
