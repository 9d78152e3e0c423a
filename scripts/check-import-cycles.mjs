// `node scripts/check-import-cycles.mjs`: fails when modules of src/ import each other in a circle,
// type imports included (docs/architecture.md "Layers"). A circle means two files are one concept
// split in two, or a type lives above its users; either way, move the shared part down.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const src = path.join(import.meta.dirname, '..', 'src');
const IMPORT = /^\s*(?:import|export)\b[^'"]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]/gm;

/** @returns {Map<string, string[]>} each file of src/ (tests left out) and the files it imports */
function importGraph() {
  const graph = new Map();
  const files = readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .map((file) => path.join(src, file));
  for (const file of files) {
    const targets = [...readFileSync(file, 'utf8').matchAll(IMPORT)].map((match) =>
      path.resolve(path.dirname(file), match[1] ?? ''),
    );
    graph.set(file, targets);
  }
  return graph;
}

/** Tarjan's strongly connected components: every component of more than one file is a circle. */
function circles(graph) {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (node) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node), low.get(target)));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node), index.get(target)));
    }
    if (low.get(node) !== index.get(node)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component);
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

const found = circles(importGraph());
for (const component of found)
  console.error(
    `import circle: ${component
      .map((file) => path.relative(path.dirname(src), file))
      .sort()
      .join(' ↔ ')}`,
  );
if (found.length > 0) {
  console.error('Move what the files share into a file both import (docs/architecture.md "Layers").');
  process.exitCode = 1;
}
