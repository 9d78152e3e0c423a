import { parseArgs } from 'node:util';
import { DEBUG_FORMATS, isDebugFormat } from '../observability/debug/debug-format.ts';
import type { CliIo } from './cli-io.ts';
import { requestDebug } from './debug-client.ts';
import { UsageError } from './usage-error.ts';

import { SettingReader } from '../config/setting-reader.ts';
import { DEFAULT_DEBUG_UNIX_SOCKET } from '../config/operator-config.ts';

type DebugGroup = 'queue' | 'global' | 'module' | 'hook' | 'git';

interface DebugFlag {
  readonly option: string;
  readonly short?: string;
  readonly query: string;
  readonly help: string;
}

/** One debug subcommand of docs/observability.md "Debug socket", with the route it asks. */
interface DebugSubcommand {
  readonly name: string;
  readonly argument?: 'NAME' | '[NAME]';
  /** Boolean flags passed on as query parameters. */
  readonly flags?: readonly DebugFlag[];
  readonly summary: string;
  readonly route: (name: string | undefined) => string;
  /** Renders or asks the cluster: waited on for SLOW_ANSWER_MS by default, not ANSWER_MS. */
  readonly slow?: true;
}

/**
 * How long a debug command waits for the operator by default (docs/lifecycle.md "Bounds and
 * timeouts"): `module render` may run `helm template` (KADDON_HELM_TEMPLATE_TIMEOUT, 30 s) and
 * `module diff` also asks the API server (30 s a request), so they get longer.
 */
const ANSWER_MS = 30_000;
const SLOW_ANSWER_MS = 120_000;

const showEmpty = { option: 'show-empty', short: 'e', query: 'showEmpty', help: 'list empty queues too' };
const withGlobal = {
  option: 'global',
  short: 'g',
  query: 'global',
  help: 'add the global section, as hooks see it',
};
const withOrigin = {
  option: 'origin',
  query: 'origin',
  help: 'each value with where it came from: a values.yaml, a schema default, the ConfigMap or the hook that patched it (docs/values.md)',
};
const segment = (name: string | undefined): string => encodeURIComponent(name ?? '');

const groups = {
  queue: [
    { name: 'list', flags: [showEmpty], summary: 'Dump tasks in all queues.', route: () => '/queue/list' },
    { name: 'main', summary: 'Dump tasks in the main queue.', route: () => '/queue/main' },
  ],
  global: [
    { name: 'list', summary: 'List global hooks, in order.', route: () => '/global/list' },
    {
      name: 'values',
      flags: [withOrigin],
      summary: 'Dump current global values.',
      route: () => '/global/values',
    },
    {
      name: 'patches',
      summary: 'Dump the JSON patch kept for global values.',
      route: () => '/global/patches',
    },
    { name: 'config', summary: 'Dump global config values.', route: () => '/global/config' },
    { name: 'snapshots', summary: 'Dump snapshots of global hooks.', route: () => '/global/snapshots' },
  ],
  module: [
    { name: 'list', summary: 'List modules and their enabled status.', route: () => '/module/list' },
    {
      name: 'values',
      argument: 'NAME',
      flags: [withGlobal, withOrigin],
      summary: 'Dump module values by name.',
      route: (n) => `/module/${segment(n)}/values`,
    },
    {
      name: 'patches',
      argument: 'NAME',
      summary: 'Dump the JSON patch kept for module values.',
      route: (n) => `/module/${segment(n)}/patches`,
    },
    {
      name: 'config',
      argument: 'NAME',
      flags: [withGlobal],
      summary: 'Dump module config values by name.',
      route: (n) => `/module/${segment(n)}/config`,
    },
    {
      name: 'resource-monitor',
      argument: '[NAME]',
      summary: 'Dump the resources monitored for each enabled module, or one.',
      route: (n) => (n === undefined ? '/module/resource-monitor' : `/module/${segment(n)}/resource-monitor`),
    },
    {
      name: 'render',
      argument: 'NAME',
      summary: 'Print the manifests the module would deliver now.',
      route: (n) => `/module/${segment(n)}/render`,
      slow: true,
    },
    {
      name: 'diff',
      argument: 'NAME',
      summary: 'Show what delivering the module now would change in the cluster (as kaddon diff).',
      route: (n) => `/module/${segment(n)}/diff`,
      slow: true,
    },
    {
      name: 'snapshots',
      argument: 'NAME',
      summary: "Dump snapshots of the module's hooks.",
      route: (n) => `/module/${segment(n)}/snapshots`,
    },
  ],
  hook: [
    {
      name: 'snapshots',
      argument: '[NAME]',
      summary: 'Dump snapshots per hook and binding, of every hook or one.',
      route: (n) => (n === undefined ? '/hook/snapshots' : `/hook/${segment(n)}/snapshots`),
    },
  ],
  git: [
    {
      name: 'status',
      summary: 'Show the Git source: revision in use, newest good one, last error.',
      route: () => '/git/status',
    },
  ],
} satisfies Record<DebugGroup, readonly DebugSubcommand[]>;

export const runQueue = (args: readonly string[], io: CliIo): Promise<void> => runDebug('queue', args, io);
export const runGlobal = (args: readonly string[], io: CliIo): Promise<void> => runDebug('global', args, io);
export const runModule = (args: readonly string[], io: CliIo): Promise<void> => runDebug('module', args, io);
export const runHook = (args: readonly string[], io: CliIo): Promise<void> => runDebug('hook', args, io);
export const runGit = (args: readonly string[], io: CliIo): Promise<void> => runDebug('git', args, io);

/** `kaddon <group> <subcommand>`: asks the running operator over its debug socket and prints the answer. */
async function runDebug(group: DebugGroup, args: readonly string[], io: CliIo): Promise<void> {
  const usage = groupUsage(group);
  const [name, ...rest] = args;
  if (name === undefined) throw new UsageError(`${group} needs a subcommand`, usage);
  if (name === '--help' || name === '-h') {
    io.stdout(`${usage}\n`);
    return;
  }
  const subcommand: DebugSubcommand | undefined = groups[group].find((s) => s.name === name);
  if (!subcommand) throw new UsageError(`unknown ${group} subcommand '${name}'`, usage);
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      output: { type: 'string', short: 'o', default: 'text' },
      'debug-unix-socket': { type: 'string' },
      timeout: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
      ...Object.fromEntries(
        (subcommand.flags ?? []).map((flag) => [
          flag.option,
          { type: 'boolean' as const, ...(flag.short === undefined ? {} : { short: flag.short }) },
        ]),
      ),
    },
  });
  if (values.help === true) {
    io.stdout(`${usage}\n`);
    return;
  }
  const path = requestPath(group, subcommand, positionals, values, usage);
  const read = new SettingReader(process.env, {
    'debug-unix-socket': values['debug-unix-socket'],
    timeout: values.timeout,
  });
  const timeout = read.find('debugTimeout');
  io.stdout(
    await requestDebug({
      socketPath: read.text('debugUnixSocket', DEFAULT_DEBUG_UNIX_SOCKET),
      path,
      timeoutMs: read.durationMs('debugTimeout', subcommand.slow ? SLOW_ANSWER_MS : ANSWER_MS),
      timeoutSetting: timeout?.name ?? '--timeout or KADDON_DEBUG_TIMEOUT',
    }),
  );
}

function requestPath(
  group: DebugGroup,
  subcommand: DebugSubcommand,
  positionals: readonly string[],
  values: Readonly<Record<string, string | boolean | undefined>>,
  usage: string,
): string {
  const output = values.output;
  if (typeof output !== 'string' || !isDebugFormat(output)) {
    throw new UsageError(
      `--output must be one of ${DEBUG_FORMATS.join(', ')}, not '${String(output)}'`,
      usage,
    );
  }
  const max = subcommand.argument === undefined ? 0 : 1;
  const min = subcommand.argument === 'NAME' ? 1 : 0;
  if (positionals.length < min)
    throw new UsageError(`${group} ${subcommand.name} needs a module name`, usage);
  if (positionals.length > max)
    throw new UsageError(
      `${group} ${subcommand.name} takes ${max === 0 ? 'no arguments' : 'one name'}`,
      usage,
    );
  const query = new URLSearchParams({ format: output });
  for (const flag of subcommand.flags ?? []) if (values[flag.option] === true) query.set(flag.query, 'true');
  return `${subcommand.route(positionals[0])}?${query.toString()}`;
}

function groupUsage(group: DebugGroup): string {
  const lines = groups[group].map((s: DebugSubcommand) => {
    const head = `  ${[s.name, s.argument].filter(Boolean).join(' ')}`;
    const flags = (s.flags ?? [])
      .map((flag) => ` ${flag.short === undefined ? '' : `-${flag.short}, `}--${flag.option} (${flag.help}).`)
      .join('');
    return `${head.padEnd(28)}${s.summary}${flags}`;
  });
  return `Usage: kaddon ${group} <subcommand> [options]

Asks the kaddon running on this host (over its debug unix socket) and prints the answer.

Subcommands:
${lines.join('\n')}

Options:
  -o, --output text|yaml|json   output format (default text)
  --debug-unix-socket PATH      the debug socket (default $DEBUG_UNIX_SOCKET, else
                                ${DEFAULT_DEBUG_UNIX_SOCKET})
  --timeout DURATION            how long to wait for the answer (default $KADDON_DEBUG_TIMEOUT,
                                else 30s; 2m for module render and module diff)
  -h, --help                    show this help`;
}
