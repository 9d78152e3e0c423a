import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { KubeClient } from '../src/delivery/kube-client.ts';
import { connectionFromKubeconfig } from '../src/delivery/kube-connection.ts';
import { compileFilter } from '../src/jq/subset/compile-filter.ts';
import { JqWorker } from '../src/jq/jq-worker.ts';
import { ensureHelm } from '../test/cluster/ensure-helm.ts';
import { findFreePort } from '../test/cluster/free-port.ts';
import { startTestCluster } from '../test/cluster/test-cluster.ts';
import { startOperatorProcess } from '../test/operator/start-operator.ts';

/**
 * `npm run bench:watch -- [--objects 10000] [--rate 100] [--seconds 10]`: a module hook whose
 * kubernetes binding watches `--objects` labelled ConfigMaps (jqFilter `.metadata.name`), against
 * the real test cluster. Measures the operator's Synchronization (spawn to the hook's run with every
 * object), its RSS then, and the latency from a ConfigMap update to the hook run that sees it while
 * `--rate` updates a second go on for `--seconds`. Peers in the same run: one list of the same
 * objects through kaddon's client, and the jqFilter over them through jq-wasm (the evaluator every
 * filter used before the compiled subset) and through the compiled subset.
 */
const { values } = parseArgs({
  options: {
    objects: { type: 'string', default: '10000' },
    rate: { type: 'string', default: '100' },
    seconds: { type: 'string', default: '10' },
  },
});
const OBJECTS = Number(values.objects);
const RATE = Number(values.rate);
const SECONDS = Number(values.seconds);
const NAMESPACE = 'kaddon-bench';
const WATCHED = 'watched';
const LABEL = 'bench.kaddon.dev/watch';

async function pool<T>(items: readonly T[], limit: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let index = next++; index < items.length; index = next++) await run(items[index] as T);
  };
  await Promise.all(Array.from({ length: limit }, worker));
}

/** The hook: logs `sync <count> <ms>` for Synchronization and `event <name> <seq> <ms>` per object seen. */
function hookSource(log: string): string {
  const config = {
    configVersion: 'v1',
    kubernetes: [
      {
        name: 'watched',
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: { nameSelector: { matchNames: [WATCHED] } },
        labelSelector: { matchLabels: { [LABEL]: 'yes' } },
        executeHookOnEvent: ['Modified'],
        jqFilter: '{name: .metadata.name, seq: .data.seq}',
      },
    ],
  };
  return `#!/usr/bin/env node
const fs = require('node:fs');
if (process.argv[2] === '--config') { console.log(${JSON.stringify(JSON.stringify(config))}); process.exit(0); }
const now = Date.now();
const lines = [];
for (const context of JSON.parse(fs.readFileSync(process.env.BINDING_CONTEXT_PATH, 'utf8'))) {
  if (context.type === 'Synchronization') lines.push('sync ' + context.objects.length + ' ' + now);
  else if (context.type === 'Event') {
    const filtered = context.filterResult ?? {};
    lines.push('event ' + filtered.name + ' ' + filtered.seq + ' ' + now);
  }
}
fs.appendFileSync(${JSON.stringify(log)}, lines.join('\\n') + '\\n');
`;
}

async function rss(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  const status = await readFile(`/proc/${String(pid)}/status`, 'utf8').catch(() => '');
  const kib = /^VmRSS:\s+(\d+) kB$/mu.exec(status)?.[1];
  return kib === undefined ? undefined : Number(kib) / 1024;
}

function percentile(sorted: readonly number[], share: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? Number.NaN;
}

const cluster = await startTestCluster();
const workDir = await mkdtemp(path.join(os.tmpdir(), 'kaddon-watch-bench-'));
try {
  const api = new KubeClient(connectionFromKubeconfig(cluster.kubeconfigPath), { timeoutMs: 120_000 });
  for (const name of [NAMESPACE, WATCHED])
    await api.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
    });
  const names = Array.from({ length: OBJECTS }, (_, index) => `cm-${String(index)}`);
  const createdAt = performance.now();
  await pool(names, 16, async (name) => {
    await api.request('POST', `/api/v1/namespaces/${WATCHED}/configmaps`, {
      body: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, labels: { [LABEL]: 'yes' } },
        data: { seq: '0', payload: 'x'.repeat(200) },
      },
    });
  });
  console.log(
    `# ${String(OBJECTS)} ConfigMaps created in ${((performance.now() - createdAt) / 1000).toFixed(1)} s`,
  );

  // Peers: one list of the same objects, and the jqFilter over them by jq-wasm and by the subset.
  const listedAt = performance.now();
  const list = await api.request('GET', `/api/v1/namespaces/${WATCHED}/configmaps`, {
    query: { labelSelector: `${LABEL}=yes` },
  });
  const listSeconds = (performance.now() - listedAt) / 1000;
  const items = (Array.isArray(list.items) ? list.items : []);
  const filter = '{name: .metadata.name, seq: .data.seq}';
  const jq = new JqWorker();
  const jqAt = performance.now();
  for (const item of items) jq.evaluate(filter, item, 10_000);
  const jqSeconds = (performance.now() - jqAt) / 1000;
  jq.stop();
  const compiled = compileFilter(filter);
  const compiledAt = performance.now();
  for (const item of items) compiled?.(item);
  const compiledSeconds = (performance.now() - compiledAt) / 1000;

  const modules = path.join(workDir, 'modules');
  const log = path.join(workDir, 'hook.log');
  await mkdir(path.join(modules, '010-watcher/hooks'), { recursive: true });
  await writeFile(path.join(modules, 'values.yaml'), 'watcherEnabled: true\n');
  await writeFile(path.join(modules, '010-watcher/hooks/watch.js'), hookSource(log));
  await chmod(path.join(modules, '010-watcher/hooks/watch.js'), 0o755);
  await writeFile(log, '');
  const port = await findFreePort();
  const startedAt = Date.now();
  const operator = startOperatorProcess({
    modulesDir: modules,
    namespace: NAMESPACE,
    kubeconfigPath: cluster.kubeconfigPath,
    helmPath: (await ensureHelm()).helm,
    workDir,
    port,
    forceKillAfterDelay: 10_000,
    extraEnv: { LOG_LEVEL: 'error' },
  });
  let syncMs: number | undefined;
  while (operator.exitCode === null && Date.now() - startedAt < 300_000) {
    const line = /^sync (\d+) (\d+)$/mu.exec(await readFile(log, 'utf8'));
    if (line && Number(line[1]) === OBJECTS) {
      syncMs = Number(line[2]) - startedAt;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const syncRss = await rss(operator.pid);

  // Updates at RATE a second; each carries its sequence number, the hook logs when it saw it.
  const sentAt = new Map<string, number>();
  const total = RATE * SECONDS;
  const updatesAt = Date.now();
  for (let seq = 1; seq <= total; seq++) {
    const due = updatesAt + (seq * 1000) / RATE;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const name = names[seq % names.length] ?? 'cm-0';
    sentAt.set(`${name} ${String(seq)}`, Date.now());
    void api.request('PATCH', `/api/v1/namespaces/${WATCHED}/configmaps/${name}`, {
      body: { data: { seq: String(seq) } },
      contentType: 'application/merge-patch+json',
    });
  }
  const latencies: number[] = [];
  const settleBy = Date.now() + 60_000;
  while (Date.now() < settleBy) {
    latencies.length = 0;
    for (const match of (await readFile(log, 'utf8')).matchAll(/^event (\S+) (\d+) (\d+)$/gmu)) {
      const sent = sentAt.get(`${match[1] ?? ''} ${match[2] ?? ''}`);
      if (sent !== undefined) latencies.push(Number(match[3]) - sent);
    }
    if (latencies.length >= total) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const afterRss = await rss(operator.pid);
  operator.kill('SIGTERM');
  await operator;
  latencies.sort((a, b) => a - b);
  const fixed = (value: number | undefined, digits = 1): string =>
    value === undefined ? 'n/a' : value.toFixed(digits);
  console.log(`\n| what | figure |\n| --- | ---: |`);
  console.log(
    `| Synchronization of ${String(OBJECTS)} ConfigMaps, operator spawn to the hook's run | ${fixed(syncMs === undefined ? undefined : syncMs / 1000)} s |`,
  );
  console.log(`| peer: one list of the same objects (kaddon's client) | ${fixed(listSeconds, 2)} s |`);
  console.log(`| peer: the jqFilter over them, jq-wasm | ${fixed(jqSeconds, 2)} s |`);
  console.log(`| the jqFilter over them, compiled subset | ${fixed(compiledSeconds, 3)} s |`);
  console.log(`| operator RSS after Synchronization | ${fixed(syncRss, 0)} MiB |`);
  console.log(
    `| updates sent (${String(RATE)}/s for ${String(SECONDS)} s) / seen by the hook | ${String(total)} / ${String(latencies.length)} |`,
  );
  console.log(
    `| update → hook run latency, median / p95 / max | ${String(percentile(latencies, 0.5))} / ${String(percentile(latencies, 0.95))} / ${String(latencies.at(-1) ?? Number.NaN)} ms |`,
  );
  console.log(`| operator RSS after the updates | ${fixed(afterRss, 0)} MiB |`);
} finally {
  await cluster.stop();
  await rm(workDir, { recursive: true, force: true });
}
