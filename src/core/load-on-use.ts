import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A package loaded the first time it is used instead of when kaddon starts: a command that never
 * needs it does not pay for reading and compiling it (docs/performance.md, "Start-up"). The
 * package must ship CommonJS for Node (`require` in its exports), which `require` loads at once
 * where an `import()` would make every caller asynchronous. The caller states the package's type:
 * `loadOnUse('yaml') as () => typeof Yaml`, with `import type * as Yaml from 'yaml'`.
 */
export function loadOnUse(name: string): () => unknown {
  let loaded: unknown;
  return () => (loaded ??= require(name) as unknown);
}
