import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { checkCase, CORPORA, corpusCases, documentedDifferences } from './conformance-cases.ts';

/**
 * `npm run conformance`: runs both recorded corpora and prints, as a Markdown table, how many cases
 * use each kustomize feature and how many of those pass (docs/conformance.md holds the latest). A
 * case's features are the kustomization fields its input uses; a documented difference counts as
 * not passing.
 */
const KUSTOMIZATION_FILES = new Set(['kustomization.yaml', 'kustomization.yml', 'Kustomization']);
const IGNORED_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

function kustomizationFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const file = path.join(dir, entry);
    if (statSync(file).isDirectory()) return kustomizationFiles(file);
    return KUSTOMIZATION_FILES.has(entry) ? [file] : [];
  });
}

/** The fields of every kustomization of a case, `kind: Component` counted as `components`. */
function featuresOf(caseDir: string): Set<string> {
  const features = new Set<string>();
  // A case of an empty tree (kustomizer-TestEmptyFileSystem) has no input directory at all.
  const input = path.join(caseDir, 'input');
  for (const file of existsSync(input) ? kustomizationFiles(input) : []) {
    const value: unknown = parseDocument(readFileSync(file, 'utf8')).toJS();
    if (typeof value !== 'object' || value === null) continue;
    for (const key of Object.keys(value)) if (!IGNORED_FIELDS.has(key)) features.add(key);
    if ((value as { kind?: unknown }).kind === 'Component') features.add('components');
  }
  return features;
}

interface Tally {
  cases: number;
  passed: number;
}

function count(tallies: Map<string, Tally>, key: string, passed: boolean): void {
  const tally = tallies.get(key) ?? { cases: 0, passed: 0 };
  tally.cases++;
  if (passed) tally.passed++;
  tallies.set(key, tally);
}

const byFeature = new Map<string, Tally>();
const byCorpus = new Map<string, Tally>();
const failures: string[] = [];
for (const corpus of CORPORA) {
  for (const { dir, name, spec } of corpusCases(corpus)) {
    let passed = documentedDifferences[name] === undefined;
    if (passed) {
      try {
        await checkCase(dir, spec, name);
      } catch (error: unknown) {
        passed = false;
        failures.push(
          `${corpus}/${name}: ${error instanceof Error ? (error.message.split('\n')[0] ?? '') : ''}`,
        );
      }
    } else failures.push(`${corpus}/${name}: documented difference`);
    count(byCorpus, corpus, passed);
    for (const feature of featuresOf(dir)) count(byFeature, feature, passed);
  }
}

const row = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
console.log(row(['corpus', 'cases', 'pass']));
console.log(row(['---', '---:', '---:']));
for (const [corpus, tally] of byCorpus) console.log(row([corpus, String(tally.cases), String(tally.passed)]));
console.log('');
console.log(row(['kustomize feature (kustomization field)', 'cases', 'pass']));
console.log(row(['---', '---:', '---:']));
for (const [feature, tally] of [...byFeature].sort(
  (a, b) => b[1].cases - a[1].cases || a[0].localeCompare(b[0]),
))
  console.log(row([`\`${feature}\``, String(tally.cases), String(tally.passed)]));
if (failures.length > 0) console.log(`\nNot passing:\n${failures.map((line) => `- ${line}`).join('\n')}`);
