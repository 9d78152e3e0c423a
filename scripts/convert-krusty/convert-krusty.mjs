#!/usr/bin/env node
/**
 * `node scripts/convert-krusty/convert-krusty.mjs --git-dir DIR [--commit REV] [--kubectl]`:
 * converts kustomize's api/krusty Go tests, read from a kustomize Git repository, into the
 * conformance corpus test/conformance/corpus/kustomize-krusty-all (its README says what a case
 * holds). Each test is run by a small Go interpreter against a recording harness; a build it makes
 * becomes a case with the test's own expectation. A test the interpreter cannot follow, or one
 * that needs what kaddon does not offer (plugins, Helm, the network, loading outside the
 * kustomization root), is listed in the README with the reason. With --kubectl, each case is also
 * built with `kubectl kustomize` and kubectl's output kept beside the test's where they disagree.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Interpreter } from './go-evaluator.mjs';
import { parseGoFile } from './go-parser.mjs';
import { compareSymbolic, makePackages, makeSelectMember, Recorder, TMP_DIR } from './krusty-harness.mjs';
import { kubectlVerdict } from './kubectl-verdict.mjs';
import { writeReadme } from './write-readme.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const corpusDir = path.join(repoRoot, 'test/conformance/corpus/kustomize-krusty-all');

const { values } = parseArgs({
  options: {
    'git-dir': { type: 'string' },
    commit: { type: 'string', default: 'HEAD' },
    kubectl: { type: 'boolean', default: false },
  },
});
if (values['git-dir'] === undefined)
  throw new Error('--git-dir DIR (a clone of kubernetes-sigs/kustomize) is required');
const git = (...args) =>
  execFileSync('git', ['--git-dir', values['git-dir'], ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
const commit = git('rev-parse', `${values.commit}^{commit}`).trim();

/** The Go files of a directory of the repository at the commit. */
function goFiles(dir) {
  return git('ls-tree', '--name-only', commit, `${dir}/`)
    .split('\n')
    .filter((f) => f.endsWith('.go'))
    .map((file) => ({ file, text: git('show', `${commit}:${file}`) }));
}

/** kustomize's default field specs as th.WriteLegacyConfigs writes them, from the Go source that holds them. */
function legacyConfigs() {
  const files = goFiles('api/internal/konfig/builtinpluginconsts');
  const consts = new Interpreter(
    files.flatMap(({ file, text }) => parseGoFile(text, file)),
    new Map(),
    undefined,
  );
  const fieldSpecs = consts.call(consts.global.vars.get('GetDefaultFieldSpecsAsMap'), []);
  return [...fieldSpecs.map.values()].join('');
}

function readTestdata(file) {
  try {
    return git('show', `${commit}:${path.posix.join('api/krusty', file)}`);
  } catch {
    return undefined;
  }
}

const testFiles = goFiles('api/krusty').filter((f) => f.file.endsWith('_test.go'));
const parsed = testFiles.map(({ file, text }) => ({ file, decls: parseGoFile(text, file) }));
const recorder = new Recorder();
const interp = new Interpreter(
  parsed.flatMap((p) => p.decls),
  makePackages(recorder, readTestdata, legacyConfigs()),
  undefined,
);
interp.global.define(
  'IsMissingKustomizationFileError',
  interp.packages.get('kusterr').members.IsMalformedYAMLError,
);
interp.selectMember = makeSelectMember(interp, recorder);
interp.compareSymbolic = compareSymbolic;

/** Every test function with what became of it: its cases, or why it was left out. */
const tests = [];
for (const { file, decls } of parsed) {
  const stem = path.basename(file, '_test.go');
  for (const decl of decls.filter(
    (d) => d.t === 'Func' && /^Test/.test(d.name) && d.receiver === undefined,
  )) {
    const result = recorder.runTest(decl.name, (t) => interp.call(interp.global.vars.get(decl.name), [t]));
    tests.push({ file, stem, name: decl.name, result });
  }
}
// kustomize's localizer tests exercise `kustomize localize`, not a build.
for (const { file, text } of goFiles('api/krusty/localizer').filter((f) => f.file.endsWith('_test.go'))) {
  for (const [, name] of text.matchAll(/^func (Test\w+)\(/gm)) {
    tests.push({
      file,
      stem: 'localizer',
      name,
      result: { name, leftOut: 'tests `kustomize localize`, which kaddon does not offer', children: [] },
    });
  }
}

/** Why a recorded build is not a case for kaddon, or undefined when it is one. */
function unsupportedBuild(run) {
  if (run.options.LoadRestrictions === 'none') {
    return 'uses LoadRestrictionsNone (kaddon keeps files inside the kustomization root)';
  }
  if (run.options.PluginConfig?.HelmConfig?.Enabled) return 'uses the helm binary';
  if (run.options.PluginConfig?.FnpLoadingOptions?.EnableExec) return 'uses an exec KRM function';
  if (run.options.AddManagedbyLabel) return 'uses the AddManagedbyLabel build option';
  for (const [file, content] of run.files) {
    if (content.includes('config.kubernetes.io/function')) return `uses a KRM function plugin (${file})`;
    if (content.includes(TMP_DIR))
      return `writes absolute paths of the Go test's temporary directory (${file})`;
  }
  const remote = [...run.files].find(
    ([file, content]) => isKustomization(file) && /https?:\/\//.test(content),
  );
  if (remote) return `names a remote file, which needs the network (${remote[0]})`;
  const escaping = [...run.files].find(([file, content]) => climbsAboveRoot(file, content));
  if (escaping)
    return `climbs above the root of the in-memory file system, where '/..' is '/' (${escaping[0]})`;
  // The Go test binary calls itself kustomize version "(test)".
  if ((run.expected ?? '').includes('kustomize-(test)'))
    return 'expects the version of a Go test binary, kustomize-(test)';
  if ((run.expected ?? '').includes(TMP_DIR))
    return "expects the absolute path of the Go test's temporary directory";
  return undefined;
}

function isKustomization(file) {
  return /\/(kustomization\.ya?ml|Kustomization)$/.test(file);
}

/** Whether a kustomization names a path with more `../` than it has directories above it. */
function climbsAboveRoot(file, content) {
  if (!isKustomization(file)) return false;
  const depth = path.posix.dirname(file).split('/').filter(Boolean).length;
  return [...content.matchAll(/(?:^|[\s'"])((?:\.\.\/)+)/g)].some((m) => m[1].length / 3 > depth);
}

const casesDir = path.join(corpusDir, 'cases');
rmSync(casesDir, { recursive: true, force: true });
mkdirSync(casesDir, { recursive: true });

/** Writes a recorded build as a case folder; returns the case's name. */
function writeCase(name, source, run) {
  const dir = path.join(casesDir, name);
  const input = path.join(dir, 'input');
  for (const [file, content] of run.files) {
    const target = path.join(input, file);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
  const emptyDirs = [...run.dirs]
    .filter((d) => ![...run.files.keys()].some((f) => f.startsWith(`${d}/`)))
    .map((d) => d.slice(1));
  const spec = {
    name,
    entry: path.posix.relative('/', run.entry) || '.',
    expect: run.expect,
    source,
    ...(run.options.Reorder === 'none' ? { reorder: 'none' } : {}),
    ...(run.expect === 'success' && run.expected === undefined ? { output_checked: false } : {}),
    ...(run.errorContains.length > 0 ? { kustomize_error_contains: run.errorContains } : {}),
    ...(run.errorMatches.length > 0 ? { kustomize_error_matches: run.errorMatches } : {}),
    ...(emptyDirs.length > 0 ? { empty_dirs: emptyDirs } : {}),
  };
  mkdirSync(input, { recursive: true });
  if (run.expected !== undefined) writeFileSync(path.join(dir, 'expected.yaml'), run.expected);
  if (values.kubectl) Object.assign(spec, kubectlVerdict(dir, spec, run.expected));
  writeFileSync(path.join(dir, 'case.json'), `${JSON.stringify(spec, null, 2)}\n`);
  return name;
}

function safe(name) {
  return name.replace(/[^A-Za-z0-9._-]/g, '_');
}

/** The cases and left-out entries of one test or subtest, depth first. */
function collect(test, result, prefix, out) {
  const label = prefix === '' ? result.name : `${prefix}/${result.name}`;
  const caseBase = safe(`${test.stem}-${label.replaceAll('/', '-')}`);
  if (result.leftOut !== undefined)
    out.leftOut.push({ file: test.file, test: label, reason: result.leftOut });
  else if (result.runs.length === 0 && result.children.length === 0) {
    out.leftOut.push({ file: test.file, test: label, reason: 'makes no build' });
  } else {
    result.runs.forEach((run, i) => {
      const name = result.runs.length > 1 ? `${caseBase}-${i + 1}` : caseBase;
      const reason = unsupportedBuild(run);
      const source = `kustomize ${test.file} ${label}${result.runs.length > 1 ? ` (build ${i + 1})` : ''}`;
      if (reason !== undefined)
        out.leftOut.push({
          file: test.file,
          test: `${label}${result.runs.length > 1 ? ` build ${i + 1}` : ''}`,
          reason,
        });
      else out.cases.push({ file: test.file, test: test.name, name: writeCase(name, source, run) });
    });
  }
  for (const child of result.children) collect(test, child, label, out);
}

const out = { cases: [], leftOut: [] };
for (const test of tests) collect(test, test.result, '', out);
writeReadme(corpusDir, { commit, tests, ...out });
console.log(
  `${tests.length} test functions; ${out.cases.length} cases written; ${out.leftOut.length} tests or builds left out`,
);
