import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { onProcessExit } from '../cluster/exit-cleanup.ts';
import { findFreePort } from '../cluster/free-port.ts';
import { startServerProcess } from '../cluster/server-process.ts';

/** A real Prometheus server on loopback with its own storage, scraping and evaluating every second. */
export interface PrometheusServer {
  readonly url: string;
  readonly logFile: string;
  /** GET `/api/v1/<route>` with `params`; the `data` of a success, else it throws with the error. */
  api<T>(route: string, params?: Readonly<Record<string, string>>): Promise<T>;
  /** Stops the server and removes its files. */
  stop(): Promise<void>;
}

export interface PrometheusOptions {
  readonly binary: string;
  /** `host:port` targets of the job `kaddon`. */
  readonly targets: readonly string[];
  readonly ruleFiles: readonly string[];
}

/**
 * Starts `prometheus` (dying with this process: server-process.ts's PR_SET_PDEATHSIG), waits for
 * /-/ready. Its files are removed by `stop`, or at exit when the test is ended another way.
 */
export async function startPrometheus(options: PrometheusOptions): Promise<PrometheusServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'kaddon-prometheus-'));
  const config = {
    global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
    rule_files: options.ruleFiles,
    scrape_configs: [{ job_name: 'kaddon', static_configs: [{ targets: options.targets }] }],
  };
  writeFileSync(path.join(dir, 'prometheus.yml'), JSON.stringify(config, null, 2));
  const port = await findFreePort();
  const server = startServerProcess({
    name: 'prometheus',
    binary: options.binary,
    args: [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${String(port)}`,
    ],
    logFile: path.join(dir, 'prometheus.log'),
    detached: false,
  });
  const forget = onProcessExit(() => {
    server.killNow();
    rmSync(dir, { recursive: true, force: true });
  });
  const url = `http://127.0.0.1:${String(port)}`;
  const stop = async (): Promise<void> => {
    await server.stop();
    forget();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitReady(url, () => server.exitReason());
  } catch (error: unknown) {
    await stop();
    throw error;
  }
  return { url, logFile: server.logFile, api: (route, params) => apiGet(url, route, params), stop };
}

async function waitReady(url: string, exited: () => string | undefined): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const reason = exited();
    if (reason !== undefined) throw new Error(`prometheus ended before it was ready: ${reason}`);
    const ready = await fetch(`${url}/-/ready`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return;
    await delay(200);
  }
  throw new Error('prometheus was not ready within 30 s');
}

async function apiGet<T>(
  url: string,
  route: string,
  params: Readonly<Record<string, string>> = {},
): Promise<T> {
  const response = await fetch(`${url}/api/v1/${route}?${new URLSearchParams(params).toString()}`);
  const body = (await response.json()) as { status: string; data?: T; error?: string };
  if (body.status !== 'success' || body.data === undefined)
    throw new Error(`prometheus /api/v1/${route}: ${body.error ?? response.statusText}`);
  return body.data;
}
