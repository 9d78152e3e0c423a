import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { corpusCasesDir } from '../../test/repo-root.ts';
import type { JsonObject, JsonValue } from './json.ts';
import { parseYamlDocuments, stringifyYaml, stringifyWithLibrary } from './yaml.ts';

/** Every object of the recorded kustomize outputs: real manifests with real corner cases. */
function corpusObjects(): JsonValue[] {
  const objects: JsonValue[] = [];
  for (const corpus of ['kustomize', 'kustomize-krusty'] as const) {
    const dir = corpusCasesDir(corpus);
    for (const name of readdirSync(dir)) {
      for (const file of readdirSync(path.join(dir, name)).filter((entry) =>
        /^expected.*\.yaml$/.test(entry),
      )) {
        const text = readFileSync(path.join(dir, name, file), 'utf8');
        for (const document of parseYamlDocuments(text, file)) objects.push(document.value);
      }
    }
  }
  return objects;
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

describe('the block printer prints what the yaml library prints', () => {
  it('for every object of the recorded kustomize outputs', () => {
    const objects = corpusObjects();
    assert.ok(objects.length > 500, `only ${String(objects.length)} objects in the corpus`);
    for (const object of objects) assert.equal(stringifyYaml(object), stringifyWithLibrary(object));
  });

  it('for generated objects with awkward keys, strings and numbers, nested deep', () => {
    fc.assert(
      fc.property(
        fc.dictionary(awkwardText, awkwardValue, { minKeys: 1, maxKeys: 6 }),
        (object: JsonObject) => {
          const nested = { spec: { template: { items: [object, { deeper: [[object]] }] } }, ...object };
          assert.equal(stringifyYaml(nested), stringifyWithLibrary(nested));
        },
      ),
      { numRuns: 2000, seed: 16 },
    );
  });

  it('leaves keys whose value is undefined out, as the library does', () => {
    const object = { a: 1, b: undefined, c: [1] } as unknown as JsonObject;
    assert.equal(stringifyYaml(object), 'a: 1\nc:\n- 1\n');
  });
});
