import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isJsonObject, type JsonValue } from '../json.ts';
import { VarTypeError } from '../var-expansion.ts';
import {
  parseWithLibrary,
  parseYamlDocuments,
  stringifyWithLibrary,
  stringifyYaml,
  type YamlExpansion,
} from './yaml.ts';

const values: Record<string, unknown> = {
  replicas: 3,
  port: '8080',
  debug: true,
  labels: { a: 'b' },
  host: 'example.com',
  nested: { text: 'see $(host)', list: ['$(replicas)'] },
};

function expansionLogging(unresolved: string[]): YamlExpansion {
  return {
    lookup: (name) => values[name] as never,
    onUnresolved: (name, file, line) => unresolved.push(`${name}@${file}:${line}`),
  };
}

function expand(text: string, unresolved: string[] = []): unknown {
  return parseYamlDocuments(text, 'f.yaml', expansionLogging(unresolved))[0]?.value;
}

/** Documents and the unresolved references reported, or the error's message. */
function outcome(parse: () => unknown, unresolved: string[]): unknown {
  try {
    return { documents: parse(), unresolved };
  } catch (error: unknown) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/** Each tagged value, as the value of a document's second line, is refused naming that line and the problem. */
function assertTaggedRefused(cases: readonly (readonly [tagged: string, problem: string])[]): void {
  for (const [tagged, problem] of cases) {
    assert.throws(
      () => parseYamlDocuments(`x: 1\na: ${tagged}\n`, 'f.yaml'),
      (error: Error) => error.message.startsWith(`file 'f.yaml:2': ${problem}`),
      tagged,
    );
  }
}

describe('$(var) expansion while parsing YAML', () => {
  it('gives a plain scalar that is exactly one reference the value and its type', () => {
    assert.deepEqual(expand('replicas: $(replicas)\ndebug: $(debug)\nlabels: $(labels)\n'), {
      replicas: 3,
      debug: true,
      labels: { a: 'b' },
    });
  });

  it('keeps quoted and block scalars strings', () => {
    assert.deepEqual(expand('a: "$(replicas)"\nb: \'$(debug)\'\nc: |\n  n=$(replicas)\n'), {
      a: '3',
      b: 'true',
      c: 'n=3\n',
    });
  });

  it('formats references inside longer strings and leaves unknown ones, reporting the line', () => {
    const unresolved: string[] = [];
    assert.deepEqual(expand('host: web.$(host)\nother:\n  x: $(nope)-1\n', unresolved), {
      host: 'web.example.com',
      other: { x: '$(nope)-1' },
    });
    assert.deepEqual(unresolved, ['nope@f.yaml:3']);
  });

  it('refuses a map referenced inside a string or a quoted scalar', () => {
    assert.throws(() => expand('x: a-$(labels)\n'), VarTypeError);
    assert.throws(() => expand('x: "$(labels)"\n'), VarTypeError);
  });

  it('leaves a document annotated kaddon.io/expand-vars: "false" as written', () => {
    const text =
      'metadata:\n  annotations:\n    kaddon.io/expand-vars: "false"\ndata:\n  s: echo $$(date) $(replicas)\n';
    assert.deepEqual(expand(text), {
      metadata: { annotations: { 'kaddon.io/expand-vars': 'false' } },
      data: { s: 'echo $$(date) $(replicas)' },
    });
  });

  it('does not expand keys', () => {
    assert.deepEqual(expand('$(replicas): x\n'), { '$(replicas)': 'x' });
  });

  it('takes a substituted map as it is, references in it included, on the js-yaml and the library path', () => {
    const expected = { x: { text: 'see $(host)', list: ['$(replicas)'] } };
    assert.deepEqual(expand('x: $(nested)\n'), expected);
    const library = parseWithLibrary('x: $(nested)\n', 'f.yaml', expansionLogging([]));
    assert.deepEqual(library[0]?.value, expected);
  });

  it('expands on the js-yaml path exactly as through the library, lines of unresolved references included', () => {
    const reference = fc.constantFrom(
      '$(replicas)',
      '$(debug)',
      '$(labels)',
      '$(nested)',
      '$(nope)',
      'x-$(host)-$(nope)',
      '$$(replicas)',
      'a $(labels)',
      '$(port)\n$(host)',
      '$(',
      '$',
    );
    const value: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        reference,
        fc.string(),
        fc.integer(),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(fc.oneof(fc.string(), reference), tie('value'), { maxKeys: 4 }),
      ),
    })).value;
    const splice = fc.constantFrom(
      '"$(replicas)"',
      "'$(labels)'",
      '$(debug)',
      ': $(nested)',
      '\n- $(host)\n',
      'kaddon.io/expand-vars: "false"',
      '\n',
      '---\n',
      '1: $(port)\n',
    );
    fc.assert(
      fc.property(
        fc.array(value, { minLength: 1, maxLength: 3 }),
        fc.array(fc.tuple(fc.nat(), splice), { maxLength: 2 }),
        (documents, edits) => {
          let text = documents.map((document) => stringifyWithLibrary(document)).join('---\n');
          for (const [at, piece] of edits) {
            const offset = at % (text.length + 1);
            text = text.slice(0, offset) + piece + text.slice(offset);
          }
          const fast: string[] = [];
          const library: string[] = [];
          assert.deepEqual(
            outcome(() => parseYamlDocuments(text, 'f.yaml', expansionLogging(fast)), fast),
            outcome(() => parseWithLibrary(text, 'f.yaml', expansionLogging(library)), library),
            `for the text:\n${text}`,
          );
        },
      ),
      { numRuns: 2000, seed: 28 },
    );
  });
});

describe('YAML the js-yaml path reads that it once left to the library', () => {
  it('refuses a key defined twice with the line of the second, as the library words it', () => {
    const text = 'a: 1\nb:\n  c: 2\n  c: 3\n';
    assert.throws(
      () => parseYamlDocuments(text, 'f.yaml'),
      (error: Error) => error.message === "file 'f.yaml:4': a mapping key is defined twice.",
    );
    assert.throws(
      () => parseWithLibrary(text, 'f.yaml'),
      (error: Error) => error.message === "file 'f.yaml:4': a mapping key is defined twice.",
    );
    assert.throws(
      () => parseYamlDocuments(`a: 1\n---\n${text}`, 'f.yaml'),
      (error: Error) => error.message === "file 'f.yaml:6': a mapping key is defined twice.",
    );
  });

  it('keeps `1` and `"1"` two keys, as the library does, where js-yaml takes them for one', () => {
    assert.deepEqual(
      parseYamlDocuments('1: a\n"1": b\n', 'f.yaml'),
      parseWithLibrary('1: a\n"1": b\n', 'f.yaml'),
    );
  });

  it('merges `<<` keys and reads collection tags as kubectl kustomize does, on both paths, and refuses a merge of what is not a map', () => {
    const head = 'l: &l\n  a: "1"\n  b: "2"\nm: &m\n  b: "20"\n  d: "4"\ndata:\n';
    // Each expected `data` is what `kubectl kustomize` (kustomize v5.7) printed for the same text.
    for (const [body, data] of [
      ['  b: "0"\n  <<: *l\n', { a: '1', b: '0' }],
      ['  <<: [*m, *l]\n', { a: '1', b: '20', d: '4' }],
      ['  <<: [*l, {b: "7"}]\n  a: "5"\n', { a: '5', b: '2' }],
      ['  <<: *l\n  b: null\n', { a: '1', b: null }],
      ['  <<: {z: "9"}\n', { z: '9' }],
      ['  <<: []\n', {}],
      ['  "<<": {z: "9"}\n', { '<<': { z: '9' } }],
      // Tagged: `!!merge` on a key merges, on a value is its text; `!!str <<` is an ordinary key.
      ['  !!merge <<: *l\n', { a: '1', b: '2' }],
      ['  v: !!merge foo\n', { v: 'foo' }],
      ['  !!str <<: {z: "9"}\n', { '<<': { z: '9' } }],
      // Collection tags change nothing: go-yaml reads a collection by its kind.
      ['  s: !!set\n    ? x\n    ? y\n', { s: { x: null, y: null } }],
      ['  s: !!set {x: 1}\n', { s: { x: 1 } }],
      ['  o: !!omap [a: 1, b: 2]\n', { o: [{ a: 1 }, { b: 2 }] }],
      ['  p: !!pairs [a: 1]\n', { p: [{ a: 1 }] }],
    ] as const) {
      const text = head + body;
      const value = (document: JsonValue | undefined) => (isJsonObject(document) ? document.data : undefined);
      assert.deepEqual(value(parseYamlDocuments(text, 'f.yaml')[0]?.value), data, body);
      assert.deepEqual(value(parseWithLibrary(text, 'f.yaml')[0]?.value), data, body);
    }
    for (const [body, problem] of [
      ['  <<: *l\n  <<: *m\n', "file 'f.yaml:9': a mapping key is defined twice"],
      ['  <<: "x"\n', "file 'f.yaml:8': the value of the merge key `<<` is neither a map nor a list of maps"],
      [
        '  <<: [*l, ~]\n',
        "file 'f.yaml:8': the value of the merge key `<<` is neither a map nor a list of maps",
      ],
      [
        '  !!merge x: 1\n',
        "file 'f.yaml:8': the value of the merge key `<<` is neither a map nor a list of maps",
      ],
    ] as const) {
      assert.throws(
        () => parseYamlDocuments(head + body, 'f.yaml'),
        (error: Error) => error.message.startsWith(problem),
        body,
      );
    }
  });

  it('refuses a key that is a map or a list, as kubectl kustomize does, and takes an alias of a string as a key', () => {
    for (const text of ['x: 1\n[1, 2]: a\n', 'x: 1\n? {a: 1}\n: b\n', 'x: &k [1]\n*k : y\n']) {
      assert.throws(
        () => parseYamlDocuments(text, 'f.yaml'),
        (error: Error) => error.message.startsWith("file 'f.yaml:2': a mapping key is a map or a list"),
        text,
      );
    }
    assert.deepEqual(parseYamlDocuments('a: &k x\n*k : y\n', 'f.yaml')[0]?.value, { a: 'x', x: 'y' });
  });

  it('reads !!timestamp and !!binary as kubectl kustomize does, on both paths, and refuses what is not of the type', () => {
    // Each expected value is what `kubectl kustomize` (kustomize v5.7) printed for the same text.
    const text = [
      'a: !!binary aGk=',
      'b: !!binary 4oI=',
      'c: !!binary /w==',
      'd: !!timestamp 2001-12-14t21:59:43.10-05:00',
      'e: !!timestamp "2001-12-14"',
      'f: !!binary |',
      '  aGVsbG8g',
      '  d29ybGQ=',
      '',
    ].join('\n');
    const expected = {
      a: 'hi',
      b: '\uFFFD\uFFFD',
      c: '\uFFFD',
      d: '2001-12-14T21:59:43.1-05:00',
      e: '2001-12-14T00:00:00Z',
      f: 'hello world',
    };
    assert.deepEqual(parseYamlDocuments(text, 'f.yaml')[0]?.value, expected);
    assert.deepEqual(parseWithLibrary(text, 'f.yaml')[0]?.value, expected);
    assertTaggedRefused([
      ['!!binary aGk', "'aGk' is not base64 for !!binary"],
      ['!!binary "aG k="', "'aG k=' is not base64 for !!binary"],
      ['!!binary |\n  aGk=\n  aGk=', "'aGk=\\naGk=\\n' is not base64 for !!binary"],
      ['!!timestamp hello', "'hello' is not a !!timestamp"],
      ['!!timestamp 2001-12-14 21:59:43.10 -5', "'2001-12-14 21:59:43.10 -5' is not a !!timestamp"],
    ]);
  });

  it('reads !!int, !!float, !!bool and !!null as kubectl kustomize does, and refuses what is not of the type', () => {
    const text =
      'a: !!int 1\nb: !!int "7"\nc: !!int 0x1F\nd: !!int 1_000\ne: !!float 2\nf: !!null ~\ng: !!bool true\n';
    assert.deepEqual(parseYamlDocuments(text, 'f.yaml')[0]?.value, {
      a: 1,
      b: 7,
      c: 31,
      d: 1000,
      e: 2,
      f: null,
      g: true,
    });
    assertTaggedRefused([
      ['!!int 1.5', "'1.5' is not a !!int"],
      ['!!bool yes', "'yes' is not a !!bool"],
      ['!!int abc', "'abc' is not a !!int"],
    ]);
  });

  it('reads a `!!str` tag before a value as the string it tags', () => {
    assert.deepEqual(parseYamlDocuments('a: !!str 1\nb:\n- !!str true\n- !!str "x"\n', 'f.yaml'), [
      { value: { a: '1', b: ['true', 'x'] }, line: 1 },
    ]);
  });
});

describe('stringifyYaml', () => {
  it('prints like go-yaml: sorted keys, double quotes for YAML 1.1 look-alikes, single quotes otherwise', () => {
    assert.equal(
      stringifyYaml({ b: 'yes', a: ['on', '1.0', 'x: y', ''], c: 'plain' }),
      'a:\n- "on"\n- "1.0"\n- \'x: y\'\n- ""\nb: "yes"\nc: plain\n',
    );
  });
});
