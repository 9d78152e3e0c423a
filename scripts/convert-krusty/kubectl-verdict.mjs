import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The documents of a YAML stream as texts, in kustomize's `---` separated output form. */
function documents(text) {
  return text
    .split(/^---\n/m)
    .map((doc) => doc.trim())
    .filter((doc) => doc !== '');
}

function sameDocuments(a, b, ordered) {
  const [x, y] = [documents(a), documents(b)];
  if (!ordered) {
    x.sort();
    y.sort();
  }
  return x.length === y.length && x.every((doc, i) => doc === y[i]);
}

/** The line of kubectl's stderr that says what went wrong (a panic's first line, or the error). */
function errorLine(stderr, dir) {
  const lines = stderr.trim().split('\n');
  const at = lines.findIndex((line) => /^panic:|err=|^error:/i.test(line));
  // A multi-line error starts with `err=<` and goes on on the next line.
  const line =
    at < 0
      ? (lines[0] ?? '')
      : `${lines[at]}${lines[at].endsWith('<') ? ` ${lines[at + 1]?.trim() ?? ''}` : ''}`;
  return line.replace(/^E\d+ [\d:.]+ +\d+ \S+\] /, '').replaceAll(`${path.resolve(dir)}/`, '');
}

/**
 * What `kubectl kustomize` (the kustomize release kaddon reproduces) does with a case, beside the Go
 * test's expectation: `agrees`, or `differs` with its output kept in kubectl.yaml (or its error in
 * case.json). kubectl always sorts its output, so a case the test builds without reordering is
 * compared as a set of documents.
 */
export function kubectlVerdict(dir, spec, expected) {
  for (const empty of spec.empty_dirs ?? []) mkdirSync(path.join(dir, 'input', empty), { recursive: true });
  const run = spawnSync('kubectl', ['kustomize', path.join(dir, 'input', spec.entry)], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const failed = run.status !== 0;
  if (spec.expect === 'error') {
    return failed
      ? { kubectl: 'agrees' }
      : (writeFileSync(path.join(dir, 'kubectl.yaml'), run.stdout), { kubectl: 'differs' });
  }
  if (failed) return { kubectl: 'differs', kubectl_error: errorLine(run.stderr, dir) };
  if (expected === undefined || sameDocuments(run.stdout, expected, spec.reorder !== 'none'))
    return { kubectl: 'agrees' };
  writeFileSync(path.join(dir, 'kubectl.yaml'), run.stdout);
  return { kubectl: 'differs' };
}
