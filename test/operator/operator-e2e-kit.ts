import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import type { KubeClient } from '../../src/delivery/kube-client.ts';
import { startOperatorProcess, type OperatorProcessOptions } from './start-operator.ts';

/** How much of the operator's output a failed wait shows. */
const TAIL_CHARS = 6000;

/** A running `kaddon operator` process with the tail of what it printed so far. */
export interface E2eOperator {
  readonly process: ReturnType<typeof startOperatorProcess>;
  /** The last lines the operator printed (stdout and stderr interleaved), while it runs too. */
  tail(): string;
  hasExited(): boolean;
}

export function startE2eOperator(options: OperatorProcessOptions): E2eOperator {
  const child = startOperatorProcess(options);
  let printed = '';
  child.all.on('data', (chunk: Buffer) => {
    printed = (printed + chunk.toString('utf8')).slice(-4 * TAIL_CHARS);
  });
  return {
    process: child,
    tail: () => printed.slice(-TAIL_CHARS),
    hasExited: () => child.exitCode !== null || child.signalCode !== null,
  };
}

/**
 * Polls `check` until it returns a value, or fails with the operator's recent output at the
 * deadline or when the operator exits. A check that throws counts as not yet.
 */
export async function eventually<T>(
  operator: E2eOperator,
  what: string,
  check: () => Promise<T | undefined>,
  deadlineMs = 90_000,
): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline || operator.hasExited())
      assert.fail(`${what}: not reached. Operator output:\n${operator.tail()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Resolves once the operator answers /readyz with 200: its first convergence is done. */
export async function waitReady(operator: E2eOperator, port: number): Promise<void> {
  await eventually(operator, '/readyz 200', async () => {
    const response = await fetch(`http://127.0.0.1:${port}/readyz`);
    return response.status === 200 ? true : undefined;
  });
}

/** Merges `data` into ConfigMap/addon-operator (seed 000 "Values storage"), creating it if absent. */
export async function setOperatorConfig(
  api: KubeClient,
  namespace: string,
  data: Readonly<Record<string, string>>,
): Promise<void> {
  const collection = `/api/v1/namespaces/${namespace}/configmaps`;
  const exists = await api.request('GET', `${collection}/addon-operator`).then(
    () => true,
    () => false,
  );
  if (!exists) {
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'addon-operator' }, data };
    await api.request('POST', collection, { body });
    return;
  }
  await api.request('PATCH', `${collection}/addon-operator`, {
    body: { data },
    contentType: 'application/merge-patch+json',
  });
}

/**
 * SIGKILLs the operator and every process under it (helm, hook processes), as a node crash or an
 * OOM kill of the container would, and waits for the operator to be gone. The descendants are
 * collected first: once the parent dies they are re-parented and can no longer be found by it.
 */
export async function killOperatorTree(operator: E2eOperator): Promise<void> {
  const root = operator.process.pid;
  if (root === undefined) return;
  for (const pid of [root, ...descendantPids(root)]) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  await operator.process;
}

/** Every process below `root`, from the parent pid field of /proc/<pid>/stat (Linux). */
export function descendantPids(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name (field 2) may contain spaces and parentheses: fields after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(entry), Number(fields[1]));
    } catch {
      // The process ended while we looked.
    }
  }
  const found: number[] = [];
  const pending = [root];
  for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
    for (const [child, parent] of parents) {
      if (parent !== pid) continue;
      found.push(child);
      pending.push(child);
    }
  }
  return found;
}
