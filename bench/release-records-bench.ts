import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { isJsonObject, scalarText, type JsonObject } from '../src/core/json.ts';
import { MAX_RECORD_BYTES } from '../src/delivery/native/record-of-secret.ts';
import { releaseSecret, type ReleaseRecord } from '../src/delivery/native/release-record.ts';
import {
  eventually,
  setOperatorConfig,
  startOperatorEnvironment,
  stateModulesTree,
  waitReady,
  type E2eOperator,
  type OperatorEnvironment,
} from '../test/operator/operator-e2e-kit.ts';

const usage = `Usage: npm run bench:records -- [--modules 4] [--revisions 10]

The operator's memory with the largest release records it accepts (docs/delivery.md "Release
records"): each of --modules modules (default 4, KADDON_CONCURRENT_DELIVERIES' default, so their
deliveries overlap) gets --revisions revisions (default 10, HELM_HISTORY_MAX's default), each a
Secret under 1 MiB that unpacks to just under the 8 MiB bound, as repetitive YAML does; then
every module is upgraded, so each delivery reads its whole history. Then the same with records
that unpack to 60 MB (zip bombs), which are refused. Prints the operator's peak RSS (VmHWM) for
each against deploy/'s 1 GiB memory limit.`;

const NAMESPACE = 'kaddon-records-bench';
const SECRETS = `/api/v1/namespaces/${NAMESPACE}/secrets`;
/** deploy/base/deployment.yaml's memory limit. */
const LIMIT_MIB = 1024;
/** The size of a Secret's data helm's storage accepts (the API server's limit). */
const SECRET_LIMIT = 1024 * 1024;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { modules: { type: 'string', default: '4' }, revisions: { type: 'string', default: '10' } },
  });
  const count = Number(values.modules);
  const revisions = Number(values.revisions);
  if (!Number.isInteger(count) || count < 1 || !Number.isInteger(revisions) || revisions < 1) {
    console.error(usage);
    process.exit(2);
  }
  const modules = Array.from({ length: count }, (_, index) => `m${String(index)}`);
  const env = await startOperatorEnvironment({ namespace: NAMESPACE, prefix: 'records-bench' });
  try {
    env.tree.write('', stateModulesTree(NAMESPACE, modules));
    const first = startNative(env);
    await waitReady(first, env.port);
    await stop(first);

    const largest = MAX_RECORD_BYTES - 64 * 1024;
    let packed = 0;
    for (const module of modules) packed = await writeHistory(env, module, revisions, largest);
    const accepted = await peakWithUpgrade(env, modules, '1', true);
    console.log(
      `${String(count)} modules × ${String(revisions)} revisions, each a ${kib(packed)} KiB Secret unpacking to ${mib(largest)} MiB: ` +
        `peak RSS ${mib(accepted)} MiB of deploy/'s ${String(LIMIT_MIB)} MiB limit (${percent(accepted)})`,
    );

    const bomb = 60 * 1000 * 1000;
    for (const module of modules) packed = await writeHistory(env, module, revisions, bomb);
    const refused = await peakWithUpgrade(env, modules, '2', false);
    console.log(
      `${String(count)} modules × ${String(revisions)} revisions, each a ${kib(packed)} KiB Secret unpacking to ${mib(bomb)} MiB (refused): ` +
        `peak RSS ${mib(refused)} MiB of ${String(LIMIT_MIB)} MiB (${percent(refused)})`,
    );
  } finally {
    for (const module of modules) await removeHistory(env, module);
    await env.stop();
  }
}

function startNative(env: OperatorEnvironment): E2eOperator {
  return env.startOperator({ forceKillAfterDelay: 30_000, extraEnv: { KADDON_DELIVERY: 'native' } });
}

async function stop(operator: E2eOperator): Promise<void> {
  operator.process.kill('SIGTERM');
  await operator.process;
}

/**
 * Changes every module's values and runs the operator until each is upgraded (`upgraded`) or has
 * failed on its records; its peak RSS.
 */
async function peakWithUpgrade(
  env: OperatorEnvironment,
  modules: readonly string[],
  rev: string,
  upgraded: boolean,
): Promise<number> {
  await setOperatorConfig(env.api, NAMESPACE, Object.fromEntries(modules.map((m) => [m, `rev: ${rev}\n`])));
  const operator = startNative(env);
  await waitReady(operator, env.port, 600_000);
  await eventually(
    operator,
    upgraded ? 'every module upgraded' : 'every module refused',
    async () => {
      for (const module of modules) {
        if (!upgraded) {
          if (!operator.output().includes(`delivery of module ${module} failed`)) return undefined;
          continue;
        }
        const object = await env.api.request(
          'GET',
          `/api/v1/namespaces/${NAMESPACE}/configmaps/${module}-state`,
        );
        if (!isJsonObject(object.data) || object.data.rev !== rev) return undefined;
      }
      return true;
    },
    600_000,
  );
  const status = await readFile(`/proc/${String(operator.process.pid)}/status`, 'utf8');
  await stop(operator);
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/**
 * Replaces the module's records with `revisions` revisions of its newest record, the last one
 * deployed, each with its manifest padded to unpack to `size` bytes; the packed size of one.
 */
async function writeHistory(
  env: OperatorEnvironment,
  module: string,
  revisions: number,
  size: number,
): Promise<number> {
  const base = await newestRecord(env, module);
  await removeHistory(env, module);
  // A ConfigMap of repeated text: YAML that packs far better than a real chart, as a bomb would.
  const line = '      kaddon release record padding: the same line again and again\n';
  const padded = (length: number): string =>
    `${base.manifest}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${module}-padding\n  namespace: ${NAMESPACE}\ndata:\n  padding: |\n${line.repeat(Math.ceil(length / line.length)).slice(0, length)}`;
  // Sized as the record's JSON, where each line's end takes two characters.
  const first = size - JSON.stringify(base).length;
  const over = JSON.stringify({ ...base, manifest: padded(first) }).length - size;
  const manifest = padded(first - over - 100);
  let packed = 0;
  for (let version = 1; version <= revisions; version++) {
    const status = version === revisions ? 'deployed' : 'superseded';
    const record: ReleaseRecord = { ...base, version, manifest, info: { ...base.info, status } };
    const secret = releaseSecret(record, new Date());
    packed = Buffer.from(scalarText((secret.data as JsonObject).release), 'base64').length;
    if (packed > SECRET_LIMIT)
      throw new Error(`a record of ${module} packs to ${String(packed)} bytes: over a Secret's limit`);
    await env.api.request('POST', SECRETS, { body: secret });
  }
  return packed;
}

async function newestRecord(env: OperatorEnvironment, module: string): Promise<ReleaseRecord> {
  const list = await env.api.request('GET', SECRETS, {
    query: { labelSelector: `owner=helm,name=${module}` },
  });
  const records = (Array.isArray(list.items) ? list.items.filter(isJsonObject) : []).map((item) => {
    const data = item.data as { release: string };
    const packed = Buffer.from(Buffer.from(data.release, 'base64').toString('latin1'), 'base64');
    return JSON.parse(
      gunzipSync(packed, { maxOutputLength: MAX_RECORD_BYTES }).toString('utf8'),
    ) as ReleaseRecord;
  });
  const newest = records.sort((a, b) => a.version - b.version).at(-1);
  if (newest === undefined) throw new Error(`module ${module} has no release`);
  return newest;
}

async function removeHistory(env: OperatorEnvironment, module: string): Promise<void> {
  await env.api.request('DELETE', SECRETS, { query: { labelSelector: `owner=helm,name=${module}` } });
}

function mib(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(0);
}

function kib(bytes: number): string {
  return (bytes / 1024).toFixed(0);
}

function percent(bytes: number): string {
  return `${((100 * bytes) / 1024 / 1024 / LIMIT_MIB).toFixed(0)}%`;
}

await main();
