import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { runCli } from '../run-cli.ts';
import type { CaseOutcome } from './kustomization-arbitrary.ts';

/**
 * Kustomization directories with one hostile ingredient each (docs/modules.md "Limits on input"):
 * a chain of components or bases up to past the depth limit, a large map that goes to the yaml
 * library (a tab, a tag, a duplicate key), a resource that is a named pipe or a directory, or a
 * resource with random bytes (control characters, byte order marks, bytes that are not UTF-8).
 */
type HostileEntry = string | Uint8Array | { readonly special: 'fifo' | 'directory' };
export type HostileFiles = Record<string, HostileEntry>;

const configMap = (name: string, data = ''): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${data}`;
const component = (body: string): string =>
  `apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n${body}`;

const depth: fc.Arbitrary<HostileFiles> = fc
  .record({ levels: fc.integer({ min: 1, max: 130 }), bases: fc.boolean() })
  .map(({ levels, bases }) => {
    const files: HostileFiles = { 'cm.yaml': configMap('cm') };
    if (bases) {
      let dir = '';
      files['kustomization.yaml'] = 'resources: [b0]\n';
      for (let i = 0; i < levels; i++) {
        dir = `${dir}b${String(i)}/`;
        files[`${dir}kustomization.yaml`] =
          i === levels - 1 ? 'resources: [cm.yaml]\n' : `resources: [b${String(i + 1)}]\n`;
      }
      files[`${dir}cm.yaml`] = configMap('deep');
      delete files['cm.yaml'];
      return files;
    }
    files['kustomization.yaml'] = 'resources: [cm.yaml]\ncomponents: [c0]\n';
    for (let i = 0; i < levels; i++)
      files[`c${String(i)}/kustomization.yaml`] = component(
        i === levels - 1 ? 'commonLabels: {deep: "yes"}\n' : `components: [../c${String(i + 1)}]\n`,
      );
    return files;
  });

const size: fc.Arbitrary<HostileFiles> = fc
  .record({ keys: fc.integer({ min: 1, max: 4000 }), twist: fc.constantFrom('tab', 'tag', 'duplicate') })
  .map(({ keys, twist }) => {
    const data = Array.from({ length: keys }, (_, i) => `  k${String(i)}: v${String(i)}\n`).join('');
    const extra = twist === 'tab' ? '#\tend\n' : twist === 'tag' ? 'extra: !!str 1\n' : '  k0: again\n';
    return {
      'kustomization.yaml': 'resources: [cm.yaml]\n',
      'cm.yaml': configMap('big', `data:\n${data}${extra}`),
    };
  });

const fileType: fc.Arbitrary<HostileFiles> = fc
  .constantFrom('fifo' as const, 'directory' as const)
  .map((special) => ({ 'kustomization.yaml': 'resources: [cm.yaml]\n', 'cm.yaml': { special } }));

const bytes: fc.Arbitrary<HostileFiles> = fc
  .record({
    prefix: fc.constantFrom([], [0xef, 0xbb, 0xbf], [0xff, 0xfe], [0xfe, 0xff], [0xff, 0xfe, 0, 0]),
    noise: fc.uint8Array({ maxLength: 6 }),
    at: fc.nat(),
  })
  .map(({ prefix, noise, at }) => {
    const text = Buffer.from(configMap('cm', 'data:\n  a: "bc"\n'));
    const cut = at % (text.length + 1);
    return {
      'kustomization.yaml': 'resources: [cm.yaml]\n',
      'cm.yaml': Buffer.concat([Buffer.from(prefix), text.subarray(0, cut), noise, text.subarray(cut)]),
    };
  });

/** One hostile kustomization directory of any of the classes. */
export const hostileTree: fc.Arbitrary<HostileFiles> = fc.oneof(depth, size, fileType, bytes);

/** Writes the tree (named pipes and directories as asked), builds it with kaddon, removes it. */
export async function buildHostileTree(files: HostileFiles): Promise<CaseOutcome> {
  const dir = mkdtempSync(path.join(tmpdir(), 'kaddon-generated-hostile-'));
  try {
    for (const [file, entry] of Object.entries(files)) {
      const target = path.join(dir, file);
      mkdirSync(path.dirname(target), { recursive: true });
      if (typeof entry === 'string' || entry instanceof Uint8Array) writeFileSync(target, entry);
      else if (entry.special === 'fifo') execFileSync('mkfifo', [target]);
      else mkdirSync(target);
    }
    return await runCli(['kustomize', dir]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A hostile tree as a failure report shows it: bytes and special files by what they are. */
export function describeHostileTree(files: HostileFiles): Record<string, string> {
  return Object.fromEntries(
    Object.entries(files).map(([file, entry]) => [
      file,
      typeof entry === 'string'
        ? entry.slice(0, 300)
        : entry instanceof Uint8Array
          ? `bytes ${Buffer.from(entry).toString('hex').slice(0, 300)}`
          : `(${entry.special})`,
    ]),
  );
}
