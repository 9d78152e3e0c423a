import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Where a command runs from, as a shell would find it: a name with a slash is that path, a bare
 * name is looked up in PATH. Undefined when there is no executable file there.
 */
export function findExecutable(command: string, pathEnv: string | undefined): string | undefined {
  if (command.includes('/')) return isExecutableFile(command) ? path.resolve(command) : undefined;
  for (const dir of (pathEnv ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, command);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
