import path from 'node:path';
import type { ProcessSpec } from './run-hook-process.ts';

/** The command line: the hook itself, or a module venv's python3 for a `.py` hook (addon-operator's shellhook). */
export function hookCommand(
  request: { readonly path: string; readonly pythonVenv?: string | undefined },
  args: readonly string[],
  env: Record<string, string>,
  cwd: string,
): ProcessSpec {
  if (request.pythonVenv !== undefined && path.extname(request.path) === '.py') {
    return {
      file: path.join(request.pythonVenv, 'bin', 'python3'),
      args: [request.path, ...args],
      env: { ...env, PYTHONHOME: request.pythonVenv },
      cwd,
    };
  }
  return { file: request.path, args, env, cwd };
}
