import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { corpusCasesDir } from '../../../test/repo-root.ts';
import type { JsonObject, JsonValue } from '../json.ts';
import { parseYamlDocuments, stringifyYaml } from './yaml.ts';

/** Every document kubectl printed in the recorded corpora, as text and as the object it reads as. */
function corpusDocuments(): { text: string; value: JsonValue }[] {
  const documents: { text: string; value: JsonValue }[] = [];
  for (const corpus of ['kustomize', 'kustomize-krusty', 'real-world'] as const) {
    const dir = corpusCasesDir(corpus);
    for (const name of readdirSync(dir)) {
      const caseDir = corpus === 'real-world' ? path.join(dir, name, 'expected') : path.join(dir, name);
      const outputs = readdirSync(caseDir).filter(
        (entry) => entry.endsWith('.yaml') && (corpus === 'real-world' || entry.startsWith('expected')),
      );
      for (const file of outputs) {
        const stream = readFileSync(path.join(caseDir, file), 'utf8');
        for (const text of stream.split(/^---\n/m)) {
          const [document] = parseYamlDocuments(text, file);
          if (document !== undefined) documents.push({ text, value: document.value });
        }
      }
    }
  }
  return documents;
}

/** Strings that probe quoting, YAML 1.1 words, numbers, indicators, folding and escapes. */
const awkwardText = fc.oneof(
  fc.constantFrom('', 'yes', 'On', 'null', '~', '0755', '1.50', '1e3', '2.0.0', '0x1F', '.inf', '- a', '? x'),
  fc.constantFrom('a: b', 'a #b', '#c', 'x:', ' lead', 'trail ', '---', '...', "it's", '"q"', 'tab\there'),
  fc.constantFrom('line\nbreak', 'end\n', '\u0007bell', 'é ü', '12:30:00', '2024-01-02', '<<', '=', '@at'),
  fc.string({
    unit: fc.constantFrom('a', 'Z', '0', '9', ' ', '-', '.', ':', '#', "'", '"', '\\', '\n', '/', '_'),
  }),
  fc.string({ minLength: 60, maxLength: 120, unit: fc.constantFrom('w', 'o', 'r', 'd', ' ', '-') }),
  fc
    .array(
      fc.oneof(
        fc.string({ maxLength: 12, unit: fc.constantFrom('k', '=', 'v', ' ', '#', ':') }),
        fc.string({ minLength: 68, maxLength: 82, unit: fc.constantFrom('k', '=', 'v', ' ') }),
      ),
      { maxLength: 5 },
    )
    .map((lines) => lines.join('\n')),
);

const awkwardValue: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    awkwardText,
    fc.constantFrom(0, -1, 1.5, 0.1, 1e21, 1e-7, 123456789012, true, false, null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(awkwardText, fc.constantFrom('name', 'app.kubernetes.io/name')), tie('value'), {
      maxKeys: 4,
    }),
  ),
})).value;

describe('the block printer prints as kustomize prints', () => {
  it('every document of the recorded kubectl outputs, byte for byte', () => {
    const documents = corpusDocuments();
    assert.ok(documents.length > 1000, `only ${String(documents.length)} documents in the corpora`);
    for (const { text, value } of documents) assert.equal(stringifyYaml(value), text);
  });

  it('generated objects with awkward keys, strings and numbers so that they read back the same', () => {
    fc.assert(
      fc.property(
        fc.dictionary(awkwardText, awkwardValue, { minKeys: 1, maxKeys: 6 }),
        (object: JsonObject) => {
          const nested = { spec: { template: { items: [object, { deeper: [[object]] }] } }, ...object };
          const printed = stringifyYaml(nested);
          // go-yaml and the `yaml` library count a block scalar's indentation indicator in a
          // nested compact sequence (`- - |2-`) from different columns; kubectl's text is kept.
          fc.pre(!/- - \|2/.test(printed));
          // JSON gives the generated objects (null-prototype dictionaries) ordinary prototypes.
          const expected = JSON.parse(JSON.stringify(nested)) as unknown;
          assert.deepEqual(parseYamlDocuments(printed, 'printed.yaml')[0]?.value, expected, printed);
        },
      ),
      { numRuns: 2000, seed: 16 },
    );
  });

  it('leaves keys whose value is undefined out, as JSON does', () => {
    const object = { a: 1, b: undefined, c: [1] } as unknown as JsonObject;
    assert.equal(stringifyYaml(object), 'a: 1\nc:\n- 1\n');
  });
});
