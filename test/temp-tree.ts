import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A scratch folder of files for one test file; `remove` deletes it. */
export interface TempTree {
  readonly root: string;
  /** Writes `files` (relative path → text) under `name` and returns that folder. */
  write(name: string, files: Readonly<Record<string, string>>): string;
  remove(): void;
}

export function makeTempTree(prefix: string): TempTree {
  const root = mkdtempSync(path.join(tmpdir(), `kaddon-${prefix}-`));
  return {
    root,
    write(name, files) {
      const dir = path.join(root, name);
      for (const [file, text] of Object.entries(files)) {
        mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
        writeFileSync(path.join(dir, file), text);
      }
      mkdirSync(dir, { recursive: true });
      return dir;
    },
    remove() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}
