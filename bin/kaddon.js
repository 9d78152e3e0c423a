#!/usr/bin/env node
// Runs the compiled build when there is one (npm run build), else the TypeScript sources through tsx.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const compiled = fileURLToPath(new URL('../dist/main.js', import.meta.url));
let entry;
if (existsSync(compiled)) {
  entry = await import(compiled);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  entry = await import('../src/main.ts');
}
await entry.runCli();
