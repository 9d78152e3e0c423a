import { statSync } from 'node:fs';
import path from 'node:path';
import { realWorldCases } from '../test/conformance/conformance-cases.ts';
import { fastestAlternating, type BuildCommand } from './measure-build.ts';

/** One tree of the real-world corpus as timed: median wall seconds of each tool, and their ratio. */
export interface TreeTiming {
  readonly name: string;
  readonly outputKb: number;
  readonly kubectl: number | undefined;
  readonly kaddon: number | undefined;
}

/**
 * Times `kubectl kustomize` and kaddon's process on every entry of the real-world corpus
 * (test/conformance/corpus/real-world), one tree after the other, the two tools taking turns run
 * by run so both see the same machine, and keeps each tool's fastest run: on a shared machine
 * other work only ever adds time. `only` keeps the entries whose name contains it.
 */
export function benchRealWorld(
  kaddon: BuildCommand,
  kubectl: BuildCommand,
  runs: number,
  only?: string,
): TreeTiming[] {
  const rows: TreeTiming[] = [];
  for (const { dir, name, spec, expectedFile } of realWorldCases()) {
    if (only !== undefined && !name.includes(only)) continue;
    const entry = path.join(dir, 'input', spec.entry);
    const [kubectlSeconds, kaddonSeconds] = fastestAlternating([kubectl, kaddon], entry, runs);
    const row = {
      name,
      outputKb: statSync(expectedFile).size / 1024,
      kubectl: kubectlSeconds,
      kaddon: kaddonSeconds,
    };
    console.log(formatRow(row));
    rows.push(row);
  }
  return rows;
}

function ratioOf(row: TreeTiming): number | undefined {
  return row.kubectl && row.kaddon ? row.kaddon / row.kubectl : undefined;
}

function seconds(value: number | undefined): string {
  return value === undefined ? 'failed' : value.toFixed(3);
}

function formatRow(row: TreeTiming): string {
  const ratio = ratioOf(row);
  return [
    row.name.padEnd(62),
    `${row.outputKb.toFixed(0).padStart(6)} KB`,
    `kubectl ${seconds(row.kubectl)}`,
    `kaddon ${seconds(row.kaddon)}`,
    `ratio ${ratio === undefined ? '-' : ratio.toFixed(2)}`,
  ].join('  ');
}

/** The targets: median ratio, the worst tree, and the trees kubectl needs 0.25 s or more for. */
export function summarize(rows: readonly TreeTiming[]): string {
  const ratios = rows.flatMap((row) => ratioOf(row) ?? []).sort((a, b) => a - b);
  const slow = rows.filter((row) => (row.kubectl ?? 0) >= 0.25).flatMap((row) => ratioOf(row) ?? []);
  const median = ratios[Math.floor(ratios.length / 2)];
  return [
    `trees: ${String(rows.length)}, median ratio kaddon/kubectl ${median?.toFixed(2) ?? '-'}, worst ${ratios.at(-1)?.toFixed(2) ?? '-'}`,
    `trees where kubectl takes >= 0.25 s: ${String(slow.length)}, worst ratio ${slow.length ? Math.max(...slow).toFixed(2) : '-'}`,
  ].join('\n');
}
