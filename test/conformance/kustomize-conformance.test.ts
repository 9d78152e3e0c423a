import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { runCli } from '../run-cli.ts';
import { corpusCasesDir } from '../repo-root.ts';

interface ConformanceCase {
  readonly name: string;
  readonly entry: string;
  readonly expect: 'success' | 'error';
  readonly description: string;
  readonly error_contains?: string;
}

/**
 * Where kaddon's error says the same thing in its own words, the substring it asserts instead of
 * kustomize's (the corpus README: Go's wording is not to be copied).
 */
const ownWording: Record<string, string> = {
  'err-08-unknown-kustomization-field': 'unknown field "namePrefixx"',
};

const casesDir = corpusCasesDir('kustomize');

function readYamlStream(text: string): unknown[] {
  return parseAllDocuments(text)
    .map((doc) => doc.toJS() as unknown)
    .filter((value) => value !== null && value !== undefined);
}

describe('kaddon kustomize reproduces recorded kustomize v5.5.0 behaviour', () => {
  for (const name of readdirSync(casesDir).sort()) {
    const dir = path.join(casesDir, name);
    const spec = JSON.parse(readFileSync(path.join(dir, 'case.json'), 'utf8')) as ConformanceCase;
    const input = path.join(dir, 'input', spec.entry);
    it(`${name}: ${spec.description}`, async () => {
      const run = await runCli(['kustomize', input]);
      if (spec.expect === 'success') {
        assert.equal(run.stderr.includes('Error:'), false, run.stderr);
        assert.equal(run.code, 0, run.stderr);
        const expectedText = readFileSync(path.join(dir, 'expected.yaml'), 'utf8');
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
    });
  }
});
