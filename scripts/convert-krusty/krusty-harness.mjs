import path from 'node:path/posix';
import {
  Builtin,
  deref,
  describe,
  GoMap,
  GoPackage,
  Pointer,
  Skipped,
  Tuple,
  Unsupported,
} from './go-evaluator.mjs';

/**
 * A recording stand-in for kustomize's test harness (api/testutils/kusttest) and the libraries the
 * api/krusty tests call. Files the test writes go into an in-memory tree; each build (`th.Run`,
 * `th.RunWithErr`, `Kustomizer.Run`) records a snapshot of that tree, the directory built and the
 * options; the assertions that follow attach kustomize's expectation to it: the output text, or an
 * error and the substrings its message must hold.
 */

const KUSTOMIZATION_HEADER = '\napiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n';
const COMPONENT_HEADER = '\napiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n';
const TMP_DIR = '/tmp/krusty-test';

/** An in-memory file tree, as kyaml's filesys.MakeFsInMemory: relative paths start at `/`. */
class MemFs {
  constructor() {
    this.files = new Map();
    this.dirs = new Set();
  }

  static abs(p) {
    return path.resolve('/', p);
  }

  write(p, content) {
    if (typeof content !== 'string' && !Buffer.isBuffer(content))
      throw new Unsupported(`writing a ${describe(content)} as a file`);
    this.files.set(MemFs.abs(p), content);
  }

  mkdir(p) {
    this.dirs.add(MemFs.abs(p));
  }

  removeAll(p) {
    const root = MemFs.abs(p);
    const under = (q) => q === root || q.startsWith(`${root}/`);
    for (const q of [...this.files.keys()]) if (under(q)) this.files.delete(q);
    for (const q of [...this.dirs]) if (under(q)) this.dirs.delete(q);
  }

  snapshot() {
    return { files: new Map(this.files), dirs: new Set(this.dirs) };
  }
}

/** One build a test runs, with what the test expects of it. */
class Run {
  constructor(fs, entry, options, expect) {
    const snapshot = fs.snapshot();
    this.files = snapshot.files;
    this.dirs = snapshot.dirs;
    this.entry = MemFs.abs(entry);
    this.options = { ...options };
    this.expect = expect;
    this.expected = undefined;
    this.errorContains = [];
    this.errorMatches = [];
  }

  settle(expect) {
    if (this.expect !== undefined && this.expect !== expect) {
      throw new Unsupported(`a build asserted both to fail and to succeed`);
    }
    this.expect = expect;
  }

  setExpected(text) {
    if (this.expected !== undefined) throw new Unsupported('a build compared with two outputs');
    this.settle('success');
    this.expected = text;
  }
}

class ResMapValue {
  constructor(run) {
    this.run = run;
  }
}
/** The error of a build; `ofOutput` when it is the error of printing a built ResMap (`m.AsYaml()`). */
class BuildError {
  constructor(run, ofOutput = false) {
    this.run = run;
    this.ofOutput = ofOutput;
  }

  /** Whether the test has not yet said if this error happens. */
  get pending() {
    return this.ofOutput ? this.run.outputFails === undefined : this.run.expect === undefined;
  }

  settle(fails) {
    if (this.ofOutput) {
      this.run.outputFails = fails;
      // kustomize's build command prints the ResMap: a ResMap that cannot be printed fails the build.
      if (fails) this.run.expect = 'error';
      return;
    }
    this.run.settle(fails ? 'error' : 'success');
  }

  get fails() {
    return this.ofOutput ? this.run.outputFails : this.run.expect === 'error';
  }
}
class ErrorText {
  constructor(run) {
    this.run = run;
  }
}
class YamlText {
  constructor(run) {
    this.run = run;
  }
}
class Kustomizer {
  constructor(options) {
    this.options = options;
  }
}
class TmpDir {
  constructor(root = TMP_DIR) {
    this.root = root;
  }
}

/** kustomize's krusty.MakeDefaultOptions: no reordering, root-only loading, no plugins. */
function defaultOptions() {
  return {
    Reorder: 'none',
    AddManagedbyLabel: false,
    LoadRestrictions: 'rootOnly',
    PluginConfig: pluginConfig(false),
  };
}

function pluginConfig(enabled) {
  return {
    PluginRestrictions: enabled ? 'none' : 'builtinsOnly',
    BpLoadingOptions: 'fileSys',
    FnpLoadingOptions: { EnableExec: false, Network: false, Mounts: [], Env: [] },
    HelmConfig: { Enabled: false, Command: '' },
  };
}

class Harness {
  constructor(recorder, fs, enhanced) {
    this.recorder = recorder;
    this.fs = fs;
    this.enhanced = enhanced;
  }

  build(entry, options, expect) {
    const run = new Run(this.fs, entry, deref(options), expect);
    this.recorder.record(run);
    return run;
  }
}

/** The test-visible methods of the recorder's own values, by the value's class. */
function harnessMember(h, name) {
  const methods = {
    WriteK: ([p, c]) => h.fs.write(path.join(p, 'kustomization.yaml'), KUSTOMIZATION_HEADER + c),
    WriteC: ([p, c]) => h.fs.write(path.join(p, 'kustomization.yaml'), COMPONENT_HEADER + c),
    WriteF: ([p, c]) => h.fs.write(p, c),
    MkDir: ([p]) => (h.fs.mkdir(p), p),
    MakeDefaultOptions: () => defaultOptions(),
    MakeOptionsPluginsDisabled: () => defaultOptions(),
    MakeOptionsPluginsEnabled: () => ({ ...defaultOptions(), PluginConfig: pluginConfig(true) }),
    Run: ([p, o]) => new ResMapValue(h.build(p, o, 'success')),
    RunWithErr: ([p, o]) => new BuildError(h.build(p, o, 'error')),
    AssertActualEqualsExpected: ([m, e]) => assertOutput(m, e),
    AssertActualEqualsExpectedNoIdAnnotations: ([m, e]) => assertOutput(m, e),
    AssertActualEqualsExpectedWithTweak: ([m, tweak, e]) => {
      if (tweak !== null) throw new Unsupported('an expectation compared after a Go tweak function');
      assertOutput(m, e);
    },
    GetFSys: () => h.fs,
    // HarnessEnhanced embeds the Harness.
    Harness: undefined,
    GetPluginConfig: () => pluginConfig(true),
    GetT: () => h.recorder.currentT(),
    // Builtin plugins need no preparation in kaddon: they are part of the engine.
    PrepBuiltin: () => h,
    Reset: () => {
      h.fs = new MemFs();
    },
    WriteLegacyConfigs: ([p]) => h.fs.write(p, h.recorder.legacyConfigs),
    BuildGoPlugin: () => {
      throw new Unsupported('a Go plugin (BuildGoPlugin)');
    },
    PrepExecPlugin: () => {
      throw new Unsupported('an exec plugin (PrepExecPlugin)');
    },
    ErrIfNoHelm: () => {
      throw new Unsupported('the helm binary (ErrIfNoHelm)');
    },
  };
  if (name === 'Harness') return h;
  return methods[name] === undefined ? undefined : new Builtin(name, methods[name]);
}

function assertOutput(m, expected) {
  if (!(m instanceof ResMapValue)) throw new Unsupported(`an output assertion on a ${describe(m)}`);
  // The harness ignores one leading line feed of the expected text (kusttest's hasgett.go).
  m.run.setExpected(expected.startsWith('\n') ? expected.slice(1) : expected);
}

function fsMember(fs, name) {
  const methods = {
    WriteFile: ([p, c]) => (fs.write(p, c), null),
    Mkdir: ([p]) => (fs.mkdir(p), null),
    MkdirAll: ([p]) => (fs.mkdir(p), null),
    RemoveAll: ([p]) => (fs.removeAll(p), null),
  };
  return methods[name] === undefined ? undefined : new Builtin(name, methods[name]);
}

export class Recorder {
  constructor() {
    this.contexts = [];
  }

  record(run) {
    const context = this.contexts.at(-1);
    if (context === undefined) throw new Unsupported('a build outside a test');
    context.runs.push(run);
  }

  currentT() {
    return this.contexts.at(-1).t;
  }

  /** Runs one test or subtest body: `{ runs }` on success, `{ leftOut }` with the reason otherwise. */
  runTest(name, body) {
    const context = { name, runs: [], children: [], t: new TValue(this) };
    this.contexts.push(context);
    try {
      body(context.t);
      for (const run of context.runs) {
        if (run.expect === undefined) throw new Unsupported('a build whose outcome the test never checks');
      }
      return { name, runs: context.runs, children: context.children };
    } catch (error) {
      if (error instanceof Unsupported)
        return { name, leftOut: `uses ${error.message}`, children: context.children };
      if (error instanceof Skipped)
        return { name, leftOut: `skipped by kustomize: ${error.message}`, children: context.children };
      throw error;
    } finally {
      this.contexts.pop();
    }
  }
}

class TValue {
  constructor(recorder) {
    this.recorder = recorder;
  }
}

function tMember(t, name, interp) {
  const fail = (args) => {
    throw new Unsupported(`a path to t.${name} (${args.map(String).join(' ').slice(0, 80)})`);
  };
  const skip = (args) => {
    throw new Skipped(args.map(String).join(' ') || 'SkipNow');
  };
  const methods = {
    Helper: () => null,
    Parallel: () => null,
    Cleanup: () => null,
    Setenv: () => {
      throw new Unsupported('t.Setenv');
    },
    Fatalf: fail,
    Fatal: fail,
    Errorf: fail,
    Error: fail,
    FailNow: fail,
    Skip: skip,
    Skipf: skip,
    SkipNow: skip,
    Run: ([name, fn]) => {
      const parent = t.recorder.contexts.at(-1);
      const sub = t.recorder.runTest(String(name).replaceAll(' ', '_'), (subT) => interp.call(fn, [subT]));
      parent.children.push(sub);
      return sub.leftOut === undefined;
    },
  };
  return methods[name] === undefined ? undefined : new Builtin(name, methods[name]);
}

/** The value of `x.name` for the recorder's own values. */
export function makeSelectMember(interp, recorder) {
  return (target, name) => {
    let member;
    if (target instanceof Harness) member = harnessMember(target, name);
    else if (target instanceof MemFs) member = fsMember(target, name);
    else if (target instanceof TValue) member = tMember(target, name, interp);
    else if (target instanceof BuildError && name === 'Error')
      member = new Builtin(name, () => new ErrorText(target.run));
    else if (target instanceof ResMapValue && name === 'AsYaml') {
      // Printing can fail where building did not (duplicate keys): that error is the build's too.
      member = new Builtin(
        name,
        () => new Tuple([new YamlText(target.run), new BuildError(target.run, true)]),
      );
    } else if (target instanceof Kustomizer && name === 'Run') {
      member = new Builtin(name, ([fs, entry]) => {
        const run = new Run(fs, entry, deref(target.options), undefined);
        recorder.record(run);
        return new Tuple([new ResMapValue(run), new BuildError(run)]);
      });
    } else if (target instanceof TmpDir && name === 'String') member = new Builtin(name, () => target.root);
    else if (target instanceof TmpDir && name === 'Join')
      member = new Builtin(name, ([p]) => path.join(target.root, p));
    else if (target instanceof Error && name === 'Error') member = new Builtin(name, () => target.message);
    else if (target !== null && typeof target === 'object' && !(target instanceof GoMap) && name in target) {
      return target[name];
    }
    if (member === undefined) throw new Unsupported(`${describe(target)}.${name}`);
    return member;
  };
}

/**
 * `err == nil` and `err != nil` of a build: a `th.RunWithErr` error is never nil; a
 * `Kustomizer.Run` error is settled by the comparison, taking the branch that does not fail the
 * test (`if err != nil { t.Fatal(err) }` means the build succeeds).
 */
export function compareSymbolic(op, a, b) {
  const error = a instanceof BuildError ? a : b instanceof BuildError ? b : undefined;
  if (error === undefined || (op !== '==' && op !== '!=')) return undefined;
  if ((a ?? null) !== null && (b ?? null) !== null) return undefined;
  if (error.pending) {
    error.settle(op === '==');
    return false;
  }
  return error.fails === (op === '!=');
}

function errorOf(value) {
  if (value instanceof BuildError) return value;
  if (value instanceof ErrorText) return new BuildError(value.run);
  return undefined;
}

function expectError(err) {
  const error = errorOf(err);
  if (error === undefined) throw new Unsupported(`an error assertion on a ${describe(err)}`);
  if (error.pending || !error.fails) error.settle(true);
  return error.run;
}

function expectNoError(err) {
  if (err === null || err === undefined) return;
  const error = errorOf(err);
  if (error === undefined) throw new Unsupported(`require.NoError on a ${describe(err)}`);
  error.settle(false);
}

/** assert.Equal and require.Equal: with a build's output or error message on one side. */
function assertEqual([, a, b]) {
  for (const [actual, expected] of [
    [a, b],
    [b, a],
  ]) {
    if (actual instanceof YamlText && typeof expected === 'string') return actual.run.setExpected(expected);
    if (actual instanceof ErrorText && typeof expected === 'string') {
      expectError(actual).errorContains.push(expected);
      return undefined;
    }
  }
  if (typeof a === 'object' && a !== null) throw new Unsupported(`assert.Equal on a ${describe(a)}`);
  if (typeof b === 'object' && b !== null) throw new Unsupported(`assert.Equal on a ${describe(b)}`);
  if (a !== b) throw new Unsupported(`a failing assert.Equal (${String(a)} != ${String(b)})`);
  return undefined;
}

function assertions() {
  return {
    Equal: assertEqual,
    NoError: ([, err]) => expectNoError(err),
    Error: ([, err]) => void expectError(err),
    Contains: ([, s, sub]) => {
      if (s instanceof ErrorText) expectError(s).errorContains.push(sub);
      else if (typeof s !== 'string' || !s.includes(sub)) throw new Unsupported('assert.Contains on a value');
    },
    ErrorContains: ([, err, sub]) => void expectError(err).errorContains.push(sub),
    EqualError: ([, err, text]) => void expectError(err).errorContains.push(text),
    Regexp: ([, re, err]) => void expectError(err).errorMatches.push(re),
    True: ([, v]) => {
      if (v !== true) throw new Unsupported('assert.True on a value it cannot evaluate');
    },
    False: ([, v]) => {
      if (v !== false) throw new Unsupported('assert.False on a value it cannot evaluate');
    },
  };
}

function builtinsOf(members) {
  return Object.fromEntries(
    Object.entries(members).map(([name, value]) => [
      name,
      typeof value === 'function' ? new Builtin(name, value) : value,
    ]),
  );
}

function sprintf([format, ...args]) {
  let i = 0;
  return format.replace(/%([-+# 0]*\d*)([svdqt%])/g, (_, flags, verb) => {
    if (verb === '%') return '%';
    const arg = args[i++];
    if (verb === 'q') return JSON.stringify(arg);
    if (typeof arg === 'object' && arg !== null) throw new Unsupported(`fmt.Sprintf of a ${describe(arg)}`);
    return String(arg);
  });
}

/** A predicate on an error that only a failing build satisfies (`kusterr.IsMalformedYAMLError`). */
function errorKind([err]) {
  expectError(err);
  return true;
}

/**
 * The packages the tests import, as far as they are modelled. `readTestdata(path)` reads a file of
 * api/krusty at the commit converted (the tests read testdata/ with os.ReadFile); `legacyConfigs`
 * is kustomize's default field specs as one YAML text (th.WriteLegacyConfigs).
 */
export function makePackages(recorder, readTestdata, legacyConfigs) {
  const harness = (fs, enhanced) => new Harness(recorder, fs, enhanced);
  const packages = {
    kusttest_test: {
      MakeHarness: () => harness(new MemFs(), false),
      MakeHarnessWithFs: ([, fs]) => harness(fs, false),
      MakeEnhancedHarness: () => harness(new MemFs(), true),
      // A test on disk: a file system and its temporary directory.
      Setup: () => new Tuple([new MemFs(), new TmpDir()]),
      AssertActualEqualsExpectedWithTweak: ([, m, tweak, e]) => {
        if (tweak !== null) throw new Unsupported('an expectation compared after a Go tweak function');
        assertOutput(m, e);
      },
    },
    fmt: { Sprintf: sprintf, Sprint: (args) => args.map(String).join('') },
    strings: {
      Contains: ([s, sub]) => {
        if (s instanceof ErrorText) {
          expectError(s).errorContains.push(sub);
          return true;
        }
        return s.includes(sub);
      },
      ReplaceAll: ([s, a, b]) => s.replaceAll(a, b),
      Replace: ([s, a, b, n]) => (n < 0 ? s.replaceAll(a, b) : s.replace(a, b)),
      Join: ([parts, sep]) => parts.join(sep),
      Repeat: ([s, n]) => s.repeat(n),
      TrimSpace: ([s]) => s.trim(),
      TrimPrefix: ([s, p]) => (s.startsWith(p) ? s.slice(p.length) : s),
      TrimSuffix: ([s, p]) => (s.endsWith(p) ? s.slice(0, -p.length) : s),
      HasPrefix: ([s, p]) => s.startsWith(p),
      HasSuffix: ([s, p]) => s.endsWith(p),
      Split: ([s, sep]) => s.split(sep),
      ToLower: ([s]) => s.toLowerCase(),
    },
    filepath: {
      Join: (parts) => path.join(...parts.filter((p) => p !== '')),
      Dir: ([p]) => path.dirname(p),
      Base: ([p]) => path.basename(p),
      Clean: ([p]) => path.normalize(p),
    },
    konfig: {
      DefaultKustomizationFileName: () => 'kustomization.yaml',
      RecognizedKustomizationFileNames: () => ['kustomization.yaml', 'kustomization.yml', 'Kustomization'],
    },
    krusty: {
      MakeDefaultOptions: () => new Pointer(defaultOptions()),
      MakeKustomizer: ([o]) => new Kustomizer(o),
      ReorderOptionLegacy: 'legacy',
      ReorderOptionNone: 'none',
      ReorderOptionUnspecified: 'unspecified',
    },
    types: {
      LoadRestrictionsNone: 'none',
      LoadRestrictionsRootOnly: 'rootOnly',
      BploLoadFromFileSys: 'fileSys',
      BploUseStaticallyLinked: 'staticallyLinked',
      EnabledPluginConfig: () => pluginConfig(true),
      DisabledPluginConfig: () => pluginConfig(false),
    },
    filesys: {
      MakeFsInMemory: () => new MemFs(),
      // A test on disk writes under a temporary directory; the recording keeps the same tree.
      MakeFsOnDisk: () => new MemFs(),
      NewTmpConfirmedDir: () => new Tuple([new TmpDir(), null]),
      Separator: '/',
    },
    assert: assertions(),
    require: assertions(),
    openapi: {
      // The schema kustomize keeps in a global between builds; each case is built on its own.
      ResetOpenAPI: () => null,
    },
    os: {
      ReadFile: ([p]) => {
        const text = readTestdata(p);
        return new Tuple(text === undefined ? ['', new Error(`no file ${p}`)] : [text, null]);
      },
      Chmod: () => {
        throw new Unsupported('an exec plugin script (os.Chmod)');
      },
    },
    kusterr: { IsMalformedYAMLError: errorKind },
    regexp: { QuoteMeta: ([s]) => s.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&') },
    loader: { ErrRtNotDir: new Error('must build at directory') },
  };
  packages.path = packages.filepath;
  recorder.legacyConfigs = legacyConfigs;
  return new Map(
    Object.entries(packages).map(([name, members]) => [name, new GoPackage(name, builtinsOf(members))]),
  );
}

export { TMP_DIR };
