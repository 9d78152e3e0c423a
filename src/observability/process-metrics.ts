import { readdirSync } from 'node:fs';
import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * The process metrics every Prometheus client library exports under the same names and without a
 * prefix (addon-operator's Go client among them), so the CPU and memory panels of dashboards made
 * for other processes work for kaddon (docs/observability.md "Metrics"). Read when scraped.
 */
export const PROCESS_METRIC_NAMES = [
  'process_cpu_seconds_total',
  'process_resident_memory_bytes',
  'process_start_time_seconds',
  'process_open_fds',
] as const;

export function registerProcessMetrics(registry: Registry): void {
  const registers = [registry];
  let counted = process.cpuUsage();
  new Counter({
    name: 'process_cpu_seconds_total',
    help: 'User and system CPU time of the process in seconds.',
    registers,
    collect() {
      const now = process.cpuUsage();
      this.inc((now.user - counted.user + now.system - counted.system) / 1e6);
      counted = now;
    },
  });
  new Gauge({
    name: 'process_resident_memory_bytes',
    help: 'Resident memory size of the process in bytes.',
    registers,
    collect() {
      this.set(process.memoryUsage.rss());
    },
  });
  const startTime = Math.round(Date.now() / 1000 - process.uptime());
  new Gauge({
    name: 'process_start_time_seconds',
    help: 'Start time of the process since the Unix epoch in seconds.',
    registers,
  }).set(startTime);
  new Gauge({
    name: 'process_open_fds',
    help: 'Open file descriptors of the process (Linux).',
    registers,
    collect() {
      const fds = openFileDescriptors();
      if (fds !== undefined) this.set(fds);
    },
  });
}

/** From /proc/self/fd, less the one reading it; undefined where there is no /proc. */
function openFileDescriptors(): number | undefined {
  try {
    return readdirSync('/proc/self/fd').length - 1;
  } catch {
    return undefined;
  }
}
