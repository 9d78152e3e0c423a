import module from 'node:module';
import { KaddonError } from './core/errors.ts';
import { stackWithSources } from './cli/source-stack.ts';
import type { CliIo } from './cli/cli-io.ts';
import { UsageError } from './cli/usage-error.ts';

const usage = `Usage: kaddon <command> [options]

Commands:
  build [MODULES_DIR...]   render the enabled modules of a modules tree, offline
  diff [MODULES_DIR...]    show what delivering a modules tree would change in the cluster
  kustomize [DIR]          build a kustomization directory, like \`kubectl kustomize DIR\`
  operator                 run the operator: converge the modules into the cluster, follow changes
  rbac [MODULES_DIR...]    print the least-privilege RBAC the operator needs for a modules tree
  sync                     sync the modules tree from Git once, validate it, and exit
  queue list|main          dump the task queues of the kaddon running here (debug socket)
  global list|values|patches|config|snapshots
                           dump global hooks, values, patches, config or snapshots
  module list|values|patches|config|resource-monitor|render|snapshots|diff [NAME]
                           dump modules, a module's state, its manifests as delivered now,
                           or what delivering it now would change
  module maintenance NAME on|off
                           hands off a module: no delivery, drift correction or uninstall
  module reconcile NAME|--all
                           run a module (or the whole tree, fetching Git) now
  hook snapshots [NAME]    dump the snapshots of each hook, per binding
  git status               the Git source of the modules: revision in use, last error
  ui                       open the operator's status page from a workstation (port-forward)
  version                  the version of kaddon (also --version)

Run \`kaddon <command> --help\` or \`kaddon help <command>\` for a command's options.`;

/** A command may return its exit code: `diff` exits 2 when something would change. */
type Command = (args: readonly string[], io: CliIo) => unknown;

/**
 * Commands whose exit code 2 means "changes" (helm-diff's --detailed-exitcode): a usage error
 * exits 1 there, like any other error.
 */
const DETAILED_EXIT = new Set(['diff']);

/** Each command is imported when it runs, so a command pays only for what it uses. */
const commands = {
  build: async () => (await import('./cli/build.ts')).runBuild,
  diff: async () => (await import('./cli/diff.ts')).runDiff,
  kustomize: async () => (await import('./cli/kustomize.ts')).runKustomize,
  sync: async () => (await import('./cli/sync.ts')).runSync,
  rbac: async () => (await import('./cli/rbac.ts')).runRbac,
  operator: async () => {
    // Before the operator loads anything: V8's heap sized for an idle process (memory-footprint.ts).
    (await import('./runtime/operator/memory-footprint.ts')).sizeHeapForOperator();
    return (await import('./cli/operator.ts')).runOperator;
  },
  queue: async () => (await import('./cli/debug.ts')).runQueue,
  global: async () => (await import('./cli/debug.ts')).runGlobal,
  module: async () => {
    const debug = (await import('./cli/debug.ts')).runModule;
    const control = (await import('./cli/module-control.ts')).runModuleControl;
    // maintenance and reconcile act on the Module objects in the cluster; the rest ask the debug socket.
    const { moduleControlUsage } = await import('./cli/module-control.ts');
    return async (args: readonly string[], io: CliIo) => {
      if (args[0] === 'maintenance' || args[0] === 'reconcile') return control(args, io);
      await debug(args, io);
      if (args[0] === '--help' || args[0] === '-h') io.stdout(`\n${moduleControlUsage}\n`);
      return 0;
    };
  },
  hook: async () => (await import('./cli/debug.ts')).runHook,
  ui: async () => (await import('./cli/ui.ts')).runUi,
  git: async () => (await import('./cli/debug.ts')).runGit,
  version: async () => (await import('./cli/version.ts')).runVersion,
} satisfies Record<string, () => Promise<Command>>;

/** Runs one command line; returns the exit code. The only place that decides it. */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [given, ...args] = argv;
  const name = given === '--version' ? 'version' : given;
  if (name === 'help' && args[0] !== undefined) return main([args[0], '--help'], io);
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(`${usage}\n`);
    return name === undefined ? 2 : 0;
  }
  const load: (() => Promise<Command>) | undefined = (commands as Record<string, () => Promise<Command>>)[
    name
  ];
  try {
    if (!load) throw new UsageError(`unknown command '${name}'`, usage);
    const command = await load();
    const code = await command(args, io);
    return typeof code === 'number' ? code : 0;
  } catch (error: unknown) {
    if (error instanceof KaddonError) {
      io.stderr(`Error: ${error.describe()}\n`);
      return error instanceof UsageError && !DETAILED_EXIT.has(name) ? 2 : 1;
    }
    if (
      error instanceof Error &&
      'code' in error &&
      typeof error.code === 'string' &&
      error.code.startsWith('ERR_PARSE_ARGS')
    ) {
      // Node's parser adds advice on `--` that rarely applies; its first sentence names the flag.
      const problem = error.message.split(/\.\s/)[0] ?? error.message;
      io.stderr(`Error: command line: ${problem}. Run \`kaddon ${name} --help\` for its options.\n`);
      return DETAILED_EXIT.has(name) ? 1 : 2;
    }
    const trace = error instanceof Error ? stackWithSources(error.stack ?? error.message) : String(error);
    io.stderr(`kaddon: internal error (a bug; please report it):\n${trace}\n`);
    return 70;
  }
}

/**
 * Node's compile cache (Node 22.1 and later; Node 20 has none): the code a command loads is
 * compiled once per kaddon version and machine and read back from the cache after that, which
 * is much of a small build's start-up (docs/performance.md, "Start-up"). Node keeps it in the
 * temporary directory, or in NODE_COMPILE_CACHE; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
 */
function enableCompileCache(): void {
  // @types/node follows Node 20, the oldest Node kaddon runs on, which has no compile cache.
  const { enableCompileCache: enable } = module as { enableCompileCache?: () => unknown };
  try {
    enable?.();
  } catch {
    // A cache that cannot be written to only costs time.
  }
}

/** Runs the process's command line with the process's streams. */
export async function runCli(): Promise<void> {
  enableCompileCache();
  const io: CliIo = {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  };
  process.exitCode = await main(process.argv.slice(2), io);
  // A finished command ends even when something it started still holds node's event loop open (a
  // child's pipe, a timer): seen once under heavy load for `build --git-url` stopped by SIGTERM,
  // which printed that it stopped and then did not exit. What kaddon started is ended by the exit
  // handler (src/processes/orphan-watchdog.ts), so nothing outlives it. The timer itself holds
  // nothing open: a command that ends cleanly exits as soon as its work is done.
  const endOnceFlushed = (): void => {
    // Output still on its way to a slow reader is what keeps the loop open: it is never cut.
    if (process.stdout.writableLength > 0 || process.stderr.writableLength > 0)
      setTimeout(endOnceFlushed, FINISHED_EXIT_GRACE_MS).unref();
    else process.exit();
  };
  setTimeout(endOnceFlushed, FINISHED_EXIT_GRACE_MS).unref();
}

/** How long a finished command's process may take to end by itself before it is ended. */
const FINISHED_EXIT_GRACE_MS = 2_000;

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === new URL(`file://${entry}`).href) await runCli();
