import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { runCli } from '../run-cli.ts';
import { corpusCasesDir } from '../repo-root.ts';

export interface ConformanceCase {
  readonly name: string;
  readonly entry: string;
  readonly expect: 'success' | 'error';
  readonly description?: string;
  readonly source?: string;
  readonly error_contains?: string;
}

/**
 * Where kaddon's error says the same thing in its own words, the substring it asserts instead of
 * kustomize's (the corpus README: Go's wording is not to be copied).
 */
const ownWording: Record<string, string> = {
  'err-08-unknown-kustomization-field': 'unknown field "namePrefixx"',
};

/**
 * Cases kaddon does not reproduce, each listed with its reason in docs/differences-from-kustomize.md;
 * they are skipped with that reason rather than asserted wrong.
 */
export const documentedDifferences: Record<string, string> = {
  'namereference-TestIssue3489':
    'docs/differences-from-kustomize.md: a referrer in an unrenamed copy of a base resolves to the renamed copy',
};

function readYamlStream(text: string): unknown[] {
  return parseAllDocuments(text)
    .map((doc) => doc.toJS() as unknown)
    .filter((value) => value !== null && value !== undefined);
}

/** The corpora, by the name of their folder under test/conformance/corpus. */
export const CORPORA = ['kustomize', 'kustomize-krusty'] as const;

/** Every case of a corpus: its folder, name and case.json. */
export function corpusCases(
  corpus: (typeof CORPORA)[number],
): { dir: string; name: string; spec: ConformanceCase }[] {
  const casesDir = corpusCasesDir(corpus);
  return readdirSync(casesDir)
    .sort()
    .map((name) => {
      const dir = path.join(casesDir, name);
      return {
        dir,
        name,
        spec: JSON.parse(readFileSync(path.join(dir, 'case.json'), 'utf8')) as ConformanceCase,
      };
    });
}

/** A public project's trees in the real-world corpus: where they came from and the entries built. */
interface RealWorldSource {
  readonly repository: string;
  readonly commit: string;
  readonly license: string;
  readonly entries: readonly string[];
}

/** A real-world case: one entry directory of a project's tree, and the file kubectl printed for it. */
export interface RealWorldCase {
  readonly dir: string;
  readonly name: string;
  readonly spec: ConformanceCase;
  readonly expectedFile: string;
}

/** Every entry of every project of the real-world corpus (its README says how they were taken). */
export function realWorldCases(): RealWorldCase[] {
  const casesDir = corpusCasesDir('real-world');
  return readdirSync(casesDir)
    .sort()
    .flatMap((project) => {
      const dir = path.join(casesDir, project);
      const source = JSON.parse(readFileSync(path.join(dir, 'source.json'), 'utf8')) as RealWorldSource;
      return source.entries.map((entry) => ({
        dir,
        name: `${project}/${entry}`,
        spec: {
          name: `${project}/${entry}`,
          entry,
          expect: 'success' as const,
          source: `${source.repository} at ${source.commit.slice(0, 12)} (${source.license})`,
        },
        expectedFile: path.join(dir, 'expected', `${entry.replaceAll('/', '__')}.yaml`),
      }));
    });
}

/** Runs `kaddon kustomize` on a case and asserts what kubectl did: the objects, the text, or the error. */
export async function checkCase(
  dir: string,
  spec: ConformanceCase,
  name: string,
  expectedFile = path.join(dir, 'expected.yaml'),
): Promise<void> {
  const input = path.join(dir, 'input', spec.entry);
  const run = await runCli(['kustomize', input]);
  if (spec.expect === 'success') {
    assert.equal(run.stderr.includes('Error:'), false, run.stderr);
    assert.equal(run.code, 0, run.stderr);
    const expectedText = readFileSync(expectedFile, 'utf8');
    assert.deepEqual(readYamlStream(run.stdout), readYamlStream(expectedText));
    // The same objects, and printed as kubectl prints them: users diff the two outputs.
    assert.equal(run.stdout, expectedText);
    return;
  }
  assert.equal(run.code, 1, `expected a failure, got exit ${run.code}:\n${run.stdout}${run.stderr}`);
  assert.equal(run.stdout, '');
  const wording = ownWording[name] ?? spec.error_contains ?? '';
  assert.ok(run.stderr.includes(wording), `stderr lacks ${JSON.stringify(wording)}:\n${run.stderr}`);
  assert.match(run.stderr, /\/input\b/, `the error names no file of the case:\n${run.stderr}`);
}
