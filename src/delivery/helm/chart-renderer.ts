import type { Socket } from 'node:net';
import path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import type { JsonObject } from '../../core/json.ts';
import { findExecutable } from '../../processes/find-executable.ts';
import { gatedCommand, openGate } from '../../processes/gated-spawn.ts';
import { packageRoot } from '../../processes/package-root.ts';
import { DEFAULT_HELM_TEMPLATE_TIMEOUT_MS, templateArgs, timeLimit, withValuesFile } from './helm-client.ts';
import { HelmError } from './helm-error.ts';
import type { ChartTemplater } from './render-chart-module.ts';

export interface ChartRendererOptions {
  /** The kaddon-chart-renderer binary (chart-renderer/, built into chart-renderer/bin/). */
  readonly binary: string;
  /** Where values files go; default the OS temp dir. */
  readonly tmpRoot?: string;
  /** The most one render may take (KADDON_HELM_TEMPLATE_TIMEOUT), as for `helm template`. */
  readonly templateTimeoutMs?: number;
  /** Aborted when kaddon stops: the render in progress is ended, later ones are refused. */
  readonly stopSignal?: AbortSignal;
}

/**
 * Where `npm ci` puts the renderer (scripts/build-chart-renderer.mjs): chart-renderer/bin/ of the
 * checkout or installed package.
 */
export function builtInRenderer(): string {
  return path.join(packageRoot(import.meta.url), 'chart-renderer', 'bin', 'kaddon-chart-renderer');
}

/** `file` (a path; a bare name is taken in the working directory) made absolute, if it is an executable file. */
export function runnableRenderer(file: string): string | undefined {
  return findExecutable(file.includes('/') ? file : `./${file}`, undefined);
}

/** One answer of the renderer, as chart-renderer/main.go writes it. */
interface RendererReply {
  readonly id: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
}

/** The most one answer may hold: what `helm template` may print (helm-client.ts), and some. */
const MAX_REPLY_BYTES = 300 * 1024 * 1024;

/** How the renderer is spawned. */
const SPAWN_OPTIONS = {
  stdin: 'pipe',
  stdout: 'pipe',
  stderr: 'pipe',
  buffer: false,
  reject: false,
  detached: true,
  env: { HELM_NO_PLUGINS: '1' },
} as const;

/** The renderer process and what it has sent of the answer being read. */
interface Running {
  readonly process: ResultPromise<typeof SPAWN_OPTIONS>;
  readonly groupGone: () => void;
  chunks: Buffer[];
  size: number;
  /** Settles the request in progress. */
  answer: ((reply: RendererReply | Error) => void) | undefined;
  /** Why kaddon ended it: the answer of the render in progress once it has exited. */
  endedBecause: Error | undefined;
}

/**
 * `helm template` without a process per render (docs/delivery.md "Chart modules without a process
 * per render"): kaddon-chart-renderer, a Go program on Helm's own packages, lives as long as kaddon
 * and renders one chart per request, with the output `helm template` of the same Helm version
 * prints. Renders are sent one at a time. Each is bounded as `helm template` is: past its time,
 * or when kaddon stops, the renderer's process group is killed and the next render starts a new
 * one; a renderer that dies is replaced the same way. Failures are HelmErrors worded as helm's.
 */
export class ChartRenderer implements ChartTemplater {
  readonly #options: ChartRendererOptions;
  #running: Running | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #nextId = 0;

  constructor(options: ChartRendererOptions) {
    this.#options = options;
    options.stopSignal?.addEventListener(
      'abort',
      () => {
        this.#end(new Error('kaddon is stopping'));
      },
      { once: true },
    );
  }

  template(release: string, namespace: string, chartDir: string, values: JsonObject): Promise<string> {
    const turn = this.#queue.then(() => this.#render(release, namespace, chartDir, values));
    this.#queue = turn.catch(() => undefined);
    return turn;
  }

  /** Ends the renderer; a later render starts another. */
  stop(): void {
    this.#end(new Error('the renderer was stopped'));
  }

  #render(release: string, namespace: string, chartDir: string, values: JsonObject): Promise<string> {
    return withValuesFile(this.#options.tmpRoot, release, values, async (file) => {
      // Messages name the `helm template` this render stands for, as HelmClient's do.
      const command = templateArgs(release, chartDir, namespace, file).join(' ');
      if (this.#options.stopSignal?.aborted === true)
        throw new HelmError(release, command, 'not run: kaddon is stopping', '', { ended: 'stop' });
      const reply = await this.#ask(
        { release, chart: chartDir, namespace, valuesFiles: [file] },
        release,
        command,
      );
      if (reply.exitCode !== 0)
        throw new HelmError(release, command, `exited with code ${String(reply.exitCode)}`, reply.stderr);
      return reply.stdout;
    });
  }

  async #ask(request: Record<string, unknown>, release: string, command: string): Promise<RendererReply> {
    const running = this.#start();
    const id = ++this.#nextId;
    const timeoutMs = this.#options.templateTimeoutMs ?? DEFAULT_HELM_TEMPLATE_TIMEOUT_MS;
    const limit = timeLimit(timeoutMs, 'KADDON_HELM_TEMPLATE_TIMEOUT');
    const ended = { byTimeout: false };
    const reply = await new Promise<RendererReply | Error>((resolve) => {
      holdOpen(running, true);
      const timer = setTimeout(() => {
        ended.byTimeout = true;
        this.#end(new Error('timeout'));
      }, timeoutMs);
      running.answer = (answer) => {
        clearTimeout(timer);
        running.answer = undefined;
        holdOpen(running, false);
        resolve(answer);
      };
      running.process.stdin.write(`${JSON.stringify({ id, ...request })}\n`);
    });
    if (reply instanceof Error) {
      if (ended.byTimeout)
        throw new HelmError(release, command, `did not finish within ${limit}`, '', {
          ended: 'timeout',
          limit,
        });
      if (this.#options.stopSignal?.aborted === true)
        throw new HelmError(release, command, 'was ended: kaddon is stopping', '', { ended: 'stop' });
      throw new HelmError(release, command, `could not run (the chart renderer ${reply.message})`, '', {
        cause: reply,
      });
    }
    if (reply.id !== id) {
      this.#end(new Error('answered out of order'));
      throw new HelmError(release, command, 'could not run (the chart renderer answered out of order)', '');
    }
    return reply;
  }

  #start(): Running {
    // Cleared when the renderer exits or is ended: one that is set is running.
    if (this.#running !== undefined) return this.#running;
    const command = gatedCommand(this.#options.binary, [], process.env, { keepStdin: true });
    const child = execa(command.file, command.args, SPAWN_OPTIONS);
    const running: Running = {
      process: child,
      groupGone: openGate(command, child),
      chunks: [],
      size: 0,
      answer: undefined,
      endedBecause: undefined,
    };
    this.#running = running;
    holdOpen(running, false);
    child.stdin.on('error', () => {
      // The renderer died: its exit below answers.
    });
    child.stdout.on('data', (chunk: Buffer) => {
      this.#receive(running, chunk);
    });
    let stderrTail = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderrTail = (stderrTail + chunk.toString()).slice(-400);
    });
    void child.then((result) => {
      running.groupGone();
      if (this.#running === running) this.#running = undefined;
      const how =
        result.exitCode === undefined
          ? result.signal === undefined
            ? `could not be started (${result.shortMessage})`
            : `was ended by ${result.signal}`
          : `exited with code ${String(result.exitCode)}`;
      running.answer?.(
        running.endedBecause ??
          new Error(`${how}${stderrTail.trim() === '' ? '' : `: ${stderrTail.trim()}`}`),
      );
    });
    return running;
  }

  /** Collects the answer's line; a whole line settles the request in progress. */
  #receive(running: Running, chunk: Buffer): void {
    let rest = chunk;
    for (let end = rest.indexOf(0x0a); end !== -1; end = rest.indexOf(0x0a)) {
      running.chunks.push(rest.subarray(0, end));
      const line = Buffer.concat(running.chunks).toString('utf8');
      running.chunks = [];
      running.size = 0;
      rest = rest.subarray(end + 1);
      let reply: RendererReply | Error;
      try {
        reply = JSON.parse(line) as RendererReply;
      } catch {
        reply = new Error('printed an answer that is not JSON');
        this.#end(reply);
      }
      running.answer?.(reply);
    }
    if (rest.length === 0) return;
    running.chunks.push(rest);
    running.size += rest.length;
    if (running.size > MAX_REPLY_BYTES)
      this.#end(new Error(`printed more than ${String(MAX_REPLY_BYTES)} bytes`));
  }

  /**
   * Kills the renderer's process group; the request in progress is answered with `reason` once
   * the renderer has exited, so that a kaddon that stops has no renderer left when it exits.
   */
  #end(reason: Error): void {
    const running = this.#running;
    if (running === undefined) return;
    this.#running = undefined;
    running.endedBecause = reason;
    const pid = running.process.pid;
    if (pid === undefined) {
      running.answer?.(reason);
      return;
    }
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // The group has ended.
    }
  }
}

/**
 * Whether the renderer keeps kaddon's event loop open: while a render is in progress, so that
 * `kaddon build` waits for it; between renders not, so that a finished command can exit.
 */
function holdOpen(running: Running, open: boolean): void {
  const { process: child } = running;
  // The pipes are sockets, which have ref() and unref() as the process has.
  for (const handle of [child, child.stdin, child.stdout, child.stderr] as unknown as Socket[]) {
    if (open) handle.ref();
    else handle.unref();
  }
}
