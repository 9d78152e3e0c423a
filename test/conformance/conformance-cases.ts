import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { runCli, type CliRun } from '../run-cli.ts';
import { corpusCasesDir } from '../repo-root.ts';

export interface ConformanceCase {
  readonly name: string;
  readonly entry: string;
  readonly expect: 'success' | 'error';
  readonly description?: string;
  readonly source?: string;
  readonly error_contains?: string;
  /** `none`: build with `--reorder none`, kustomize's library default that its Go tests use. */
  readonly reorder?: 'none';
  /** false: the Go test only requires the build to succeed. */
  readonly output_checked?: boolean;
  /** Directories the test creates empty, which Git does not keep; made before the build. */
  readonly empty_dirs?: readonly string[];
  /** kubectl's error, where `kubectl kustomize` failed on a krusty case the Go test expects to build. */
  readonly kubectl_error?: string;
}

/**
 * Where kaddon's error says the same thing in its own words, the substring it asserts instead of
 * kustomize's (the corpus README: Go's wording is not to be copied).
 */
const ownWording: Record<string, string> = {
  'err-08-unknown-kustomization-field': 'unknown field "namePrefixx"',
  'yaml-err-01-merge-of-a-string':
    "cm.yaml:6': the value of the merge key `<<` is neither a map nor a list of maps",
};

/**
 * Cases kaddon does not reproduce, each listed with its reason in docs/differences-from-kustomize.md;
 * they are skipped with that reason rather than asserted wrong.
 */
export const documentedDifferences: Record<string, string> = {
  'namereference-TestIssue3489':
    'docs/differences-from-kustomize.md: a referrer in an unrenamed copy of a base resolves to the renamed copy',
  'crd-TestCrdBase': 'docs/differences-from-kustomize.md: crds is refused',
  'crd-TestCrdWithOverlay': 'docs/differences-from-kustomize.md: crds is refused',
  ...Object.fromEntries(
    [
      'BasicUsage',
      'BothPathAndVersion',
      'FileNotFound',
      'FromComponentWithOverlays',
      'NotBuiltin',
      'WithTwoGvks',
      'Yaml',
    ].map((test) => [
      `openapicustomschema-TestCustomOpenApiField${test}`,
      'docs/differences-from-kustomize.md: openapi is accepted and ignored',
    ]),
  ),
  ...Object.fromEntries(
    [
      'StatefulSetTemplateWithClaimTemplateAndIncludeVolumeClaimTemplatesFalse',
      'StatefulSetTemplateWithClaimTemplateIncludeTemplateFalseAndIncludeVolumeClaimTemplatesTrue',
    ].map((test) => [
      `inlinelabels-TestKustomizationLabelsIn${test}`,
      'docs/differences-from-kustomize.md: includeVolumeClaimTemplates (after kustomize v5.5.0) is ignored',
    ]),
  ),
};

/**
 * krusty cases whose Go test, from a kustomize newer than the v5.5.0 kaddon reproduces, expects
 * what v5.5.0 does not do (docs/differences-from-kustomize.md). They are checked against what
 * `kubectl kustomize` (v5.5.0) did with the same input, recorded beside the case: its output in
 * kubectl.yaml, or its failure.
 */
const changedAfterKustomize550: Record<string, string> = {
  'customconfig-TestCustomConfig': 'volumeClaimTemplateLabels in a configurations file',
  'customconfig-TestCustomConfigWithDefaultOverspecification':
    'volumeClaimTemplateLabels in a configurations file',
  'customconfig-TestFixedBug605_BaseCustomizationAvailableInOverlay':
    'volumeClaimTemplateLabels in a configurations file',
  'namespaces-TestNamespaceNotAddedToValidatingAdmissionPolicies':
    'ValidatingAdmissionPolicy(Binding) as cluster-scoped kinds',
  'replacementtransformer-TestReplacementTransformerAppendToAnnotationUsingRegex':
    'regular expressions in replacement targets',
  'replacementtransformer-TestReplacementTransformerServiceNamespaceUrlUsingRegex':
    'regular expressions in replacement targets',
  'replacementtransformer-TestReplacementTransformerWithSuffixTransformerAndRejectUsingRegex':
    'regular expressions in replacement targets',
};

function readYamlStream(text: string): unknown[] {
  return parseAllDocuments(text)
    .map((doc) => doc.toJS() as unknown)
    .filter((value) => value !== null && value !== undefined);
}

/** The corpora, by the name of their folder under test/conformance/corpus. */
export const CORPORA = ['kustomize', 'kustomize-krusty', 'kustomize-krusty-all'] as const;

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

/**
 * What kubectl did with a case: failed (kubectl_error), or printed kubectl.yaml; with `--reorder
 * none` the objects are compared as a set, since kubectl always sorts them.
 */
function assertKubectlReproduced(dir: string, spec: ConformanceCase, run: CliRun): void {
  if (spec.kubectl_error !== undefined) {
    assert.equal(run.code, 1, `kubectl failed (${spec.kubectl_error}); kaddon exited ${run.code}`);
    return;
  }
  assert.equal(run.code, 0, run.stderr);
  const sorted = (text: string): string[] =>
    readYamlStream(text)
      .map((doc) => JSON.stringify(doc))
      .sort();
  assert.deepEqual(sorted(run.stdout), sorted(readFileSync(path.join(dir, 'kubectl.yaml'), 'utf8')));
}

/** Runs `kaddon kustomize` on a case and asserts what kubectl did: the objects, the text, or the error. */
export async function checkCase(
  dir: string,
  spec: ConformanceCase,
  name: string,
  expectedFile = path.join(dir, 'expected.yaml'),
): Promise<void> {
  const input = path.join(dir, 'input', spec.entry);
  for (const empty of spec.empty_dirs ?? []) mkdirSync(path.join(dir, 'input', empty), { recursive: true });
  const run = await runCli(['kustomize', ...(spec.reorder ? ['--reorder', spec.reorder] : []), input]);
  if (changedAfterKustomize550[name] !== undefined) {
    assertKubectlReproduced(dir, spec, run);
    return;
  }
  if (spec.expect === 'success') {
    assert.equal(run.stderr.includes('Error:'), false, run.stderr);
    assert.equal(run.code, 0, run.stderr);
    if (spec.output_checked === false) return;
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
