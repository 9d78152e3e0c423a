import { spawn } from 'node:child_process';
import { ClusterError, type ClusterErrorCode } from './cluster-error.ts';

export interface ToolRun {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Names the step in error messages, e.g. `kube-apiserver 'v1.35.4' build`. */
  readonly step: string;
  /** What to do when the command fails. */
  readonly hint: string;
  /** The error code when the command runs but fails; `command-failed` unless said. */
  readonly failureCode?: ClusterErrorCode;
}

/** Runs a command to completion and returns its stdout; a failure carries its last output lines. */
export function runTool(file: string, args: readonly string[], run: ToolRun): Promise<string> {
  return new Promise((resolve, reject) => {
    // stdin 'ignore': Debian's bash reads ~/.bashrc when stdin is a pipe (docs/architecture.md
    // "Dependencies").
    const child = spawn(file, args, {
      cwd: run.cwd,
      env: run.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', (error) => {
      reject(toolMissing(file, run, error));
    });
    child.on('close', (code, signal) => {
      if (code === 0) resolve(stdout);
      else reject(commandFailed(file, args, run, signal ?? `exit ${code ?? '?'}`, output));
    });
  });
}

/** The last lines of a process's output, for error messages. */
export function lastLines(text: string, count = 20): string {
  return text.trimEnd().split('\n').slice(-count).join('\n');
}

function toolMissing(file: string, run: ToolRun, cause: Error): ClusterError {
  return new ClusterError('tool-missing', run.step, `cannot run '${file}' (${cause.message})`, run.hint, {
    cause,
  });
}

function commandFailed(
  file: string,
  args: readonly string[],
  run: ToolRun,
  how: string,
  output: string,
): ClusterError {
  const command = [file, ...args].join(' ');
  const problem = `'${command}' failed (${how}); its last output follows`;
  return new ClusterError(run.failureCode ?? 'command-failed', run.step, problem, run.hint, {
    output: lastLines(output),
  });
}
