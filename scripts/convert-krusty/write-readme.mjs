import { writeFileSync } from 'node:fs';
import path from 'node:path';

/** Reasons a test is left out, by the pattern of the detail the interpreter gave. */
const CATEGORIES = [
  [/localize/, '`kustomize localize`, not a build'],
  [/helm|MakeEnhancedHarnessWithTmpRoot/i, 'Helm charts (the helm binary)'],
  [
    /exec plugin|os\.Chmod|Go plugin|KRM function|identifier exec/,
    'plugins that run programs (exec and Go plugins, KRM functions)',
  ],
  [
    /identifier http|identifier utils|TempDir|ErrHTTP|remote file/,
    'the network (remote resources the test serves or fetches)',
  ],
  [/GetSchemaVersion|kubernetesapi/, 'assertions on the OpenAPI schema kustomize loaded, a Go value'],
  [/ResMapValue\./, 'assertions on Go objects of the built ResMap, not on the output'],
  [/LoadRestrictionsNone/, '`LoadRestrictionsNone` (kaddon keeps files inside the kustomization root)'],
  [/temporary directory/, "absolute paths of the Go test's temporary directory"],
  [/kustomize-\(test\)|AddManagedbyLabel/, 'the managed-by label of a Go test binary (`kustomize-(test)`)'],
  [/climbs above the root/, "paths above the in-memory file system's root, where `/..` is `/`"],
];

function categoryOf(reason) {
  return CATEGORIES.find(([pattern]) => pattern.test(reason))?.[1] ?? reason;
}

/** The README of the generated corpus: where it came from, how to remake it, and what was left out. */
export function writeReadme(corpusDir, { commit, tests, cases, leftOut }) {
  const byReason = new Map();
  for (const entry of leftOut) {
    const category = categoryOf(entry.reason);
    const list = byReason.get(category) ?? [];
    list.push(entry);
    byReason.set(category, list);
  }
  const leftOutTests = new Set(leftOut.map((e) => `${e.file} ${e.test.split('/')[0].split(' ')[0]}`));
  const convertedTests = new Set(cases.map((c) => `${c.file} ${c.test}`));
  const count = (converted, left) =>
    tests.filter(
      (t) =>
        convertedTests.has(`${t.file} ${t.name}`) === converted &&
        leftOutTests.has(`${t.file} ${t.name}`) === left,
    ).length;
  const lines = [
    "# kustomize's api/krusty tests, converted by a script",
    '',
    `Generated from [kubernetes-sigs/kustomize](https://github.com/kubernetes-sigs/kustomize) at commit`,
    `\`${commit}\` by \`scripts/convert-krusty/convert-krusty.mjs\`; do not edit the cases by hand.`,
    'To regenerate (a clone of kustomize is all it reads; `--kubectl` also builds each case with',
    '`kubectl kustomize` and notes where kubectl disagrees with the test):',
    '',
    '```sh',
    'node scripts/convert-krusty/convert-krusty.mjs --git-dir /path/to/kustomize/.git --commit COMMIT --kubectl',
    '```',
    '',
    'The script runs each Go test function in a small interpreter of the Go the tests are written in,',
    "against a recording stand-in for kustomize's test harness: the files a test writes",
    '(`th.WriteK`, `th.WriteC`, `th.WriteF`, `fSys.WriteFile`…) go into an in-memory tree, and each build',
    '(`th.Run`, `th.RunWithErr`, `Kustomizer.Run`) becomes a case holding that tree and the assertion',
    "the test makes on it: `th.AssertActualEqualsExpected`'s text (without its first line feed, as the",
    'harness compares it), or an expected error and the substrings the test looks for in its message.',
    'A test with several builds gives one case per build (`-1`, `-2`…); a subtest of `t.Run`, one case',
    'per subtest.',
    '',
    'A case: `case.json` (`entry` is the directory under `input/` to build; `expect` is `success` or',
    "`error`; `reorder: none` when the test builds with kustomize's library default of no reordering,",
    'which kaddon offers as `kaddon kustomize --reorder none`; `kustomize_error_contains` lists what',
    "kustomize's message must contain, kept for reference since kaddon words errors its own way;",
    '`empty_dirs` are directories the test creates empty, which Git cannot keep; `output_checked: false`',
    'when the test only requires the build to succeed; `kubectl` is `agrees` or `differs`, with',
    "kubectl's output in `kubectl.yaml` where it differs), `input/`, `expected.yaml`.",
    '',
    `## Counts`,
    '',
    `- test functions: ${tests.length} (\`func Test…\` in api/krusty/*_test.go and api/krusty/localizer/)`,
    `- cases written: ${cases.length}`,
    `- test functions converted whole: ${count(true, false)}; in part (some subtests or builds left out): ${count(true, true)}; left out whole: ${count(false, true)}`,
    `- tests, subtests or builds left out: ${leftOut.length}`,
    '',
    '## Left out, by reason',
    '',
  ];
  for (const [reason, entries] of [...byReason].sort(
    (a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]),
  )) {
    lines.push(`### ${reason} (${entries.length})`, '');
    for (const e of entries) lines.push(`- ${path.basename(e.file, '_test.go')} ${e.test}: ${e.reason}`);
    lines.push('');
  }
  writeFileSync(path.join(corpusDir, 'README.md'), `${lines.join('\n').trimEnd()}\n`);
}
