import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../repo-root.ts';

/** The parts of scripts/convert-krusty (plain JavaScript) this test drives. */
interface RecordedRun {
  readonly files: ReadonlyMap<string, string>;
  readonly entry: string;
  readonly expect: string | undefined;
  readonly expected: string | undefined;
  readonly errorContains: readonly string[];
  readonly options: { readonly Reorder: string };
}
interface TestResult {
  readonly runs?: readonly RecordedRun[];
  readonly leftOut?: string;
  readonly children: readonly TestResult[];
}
interface Converter {
  parseGoFile(text: string, file: string): unknown[];
  Interpreter: new (
    decls: unknown[],
    packages: unknown,
    selectMember: undefined,
  ) => {
    global: { vars: Map<string, unknown> };
    selectMember: unknown;
    compareSymbolic: unknown;
    call(fn: unknown, args: unknown[]): unknown;
  };
  Recorder: new () => { runTest(name: string, body: (t: unknown) => unknown): TestResult };
  makePackages(recorder: unknown, readTestdata: () => undefined, legacyConfigs: string): unknown;
  makeSelectMember(interp: unknown, recorder: unknown): unknown;
  compareSymbolic: unknown;
}

async function loadConverter(): Promise<Converter> {
  const dir = path.join(repoRoot, 'scripts/convert-krusty');
  const load = async (file: string): Promise<Record<string, unknown>> =>
    (await import(pathToFileURL(path.join(dir, file)).href)) as Record<string, unknown>;
  return {
    ...(await load('go-parser.mjs')),
    ...(await load('go-evaluator.mjs')),
    ...(await load('krusty-harness.mjs')),
  } as unknown as Converter;
}

/** Runs one Go test function of `source` against the recording harness. */
async function record(source: string, test: string): Promise<TestResult> {
  const c = await loadConverter();
  const recorder = new c.Recorder();
  const interp = new c.Interpreter(
    c.parseGoFile(source, 'x_test.go'),
    c.makePackages(recorder, () => undefined, ''),
    undefined,
  );
  interp.selectMember = c.makeSelectMember(interp, recorder);
  interp.compareSymbolic = c.compareSymbolic;
  return recorder.runTest(test, (t) => interp.call(interp.global.vars.get(test), [t]));
}

const header = 'package krusty_test\nimport (\n\t"strings"\n\t"testing"\n)\n';

describe('scripts/convert-krusty reads a krusty Go test into cases', () => {
  it('records the files a test writes, the directory it builds and the output it expects', async () => {
    const result = await record(
      `${header}
func writeBase(th kusttest_test.Harness) {
	th.WriteF("base/cm.yaml", "kind: ConfigMap\\n" + "metadata:\\n  name: a\\n")
}

func TestPrefix(t *testing.T) {
	th := kusttest_test.MakeHarness(t)
	writeBase(th)
	th.WriteK("overlay", \`
resources:
- ../base
namePrefix: p-
\`)
	m := th.Run("overlay", th.MakeDefaultOptions())
	th.AssertActualEqualsExpected(m, \`
kind: ConfigMap
metadata:
  name: p-a
\`)
}`,
      'TestPrefix',
    );
    const [run] = result.runs ?? [];
    assert.ok(run, result.leftOut);
    assert.equal(run.entry, '/overlay');
    assert.equal(run.expect, 'success');
    assert.equal(run.expected, 'kind: ConfigMap\nmetadata:\n  name: p-a\n');
    assert.equal(run.options.Reorder, 'none');
    assert.deepEqual([...run.files.keys()].sort(), ['/base/cm.yaml', '/overlay/kustomization.yaml']);
    assert.match(
      run.files.get('/overlay/kustomization.yaml') ?? '',
      /^\napiVersion: kustomize.config.k8s.io\/v1beta1\nkind: Kustomization\n\nresources:/,
    );
  });

  it('turns each subtest of a table into its own case, with the error text it looks for', async () => {
    const result = await record(
      `${header}
func TestErrors(t *testing.T) {
	for name, tc := range map[string]struct{ kust, want string }{
		"bad field": {kust: "namePrefixx: a", want: "unknown field"},
	} {
		t.Run(name, func(t *testing.T) {
			th := kusttest_test.MakeHarness(t)
			th.WriteK(".", tc.kust)
			err := th.RunWithErr(".", th.MakeDefaultOptions())
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("unexpected error %v", err)
			}
		})
	}
}`,
      'TestErrors',
    );
    const [sub] = result.children;
    const [run] = sub?.runs ?? [];
    assert.ok(run, sub?.leftOut);
    assert.equal(run.expect, 'error');
    assert.deepEqual(run.errorContains, ['unknown field']);
  });

  it('leaves a test out, naming what it needs, when the harness cannot follow it', async () => {
    const result = await record(
      `${header}
func TestPlugin(t *testing.T) {
	th := kusttest_test.MakeEnhancedHarness(t).PrepExecPlugin("someteam.example.com", "v1", "SedTransformer")
	th.WriteK(".", "")
}`,
      'TestPlugin',
    );
    assert.equal(result.leftOut, 'uses an exec plugin (PrepExecPlugin)');
  });
});
