import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { repoRoot } from '../../../test/repo-root.ts';
import type { JsonValue } from '../json.ts';
import { loadPlainYaml, type DollarScalar } from './yaml-fast-load.ts';
import { MAX_YAML_ALIAS_COUNT, MAX_YAML_DEPTH, parseWithLibrary, stringifyWithLibrary } from './yaml.ts';

const limits = { depth: MAX_YAML_DEPTH, aliases: MAX_YAML_ALIAS_COUNT };

/** What the `yaml` library makes of a text: its documents, or that it refuses it. */
function libraryResult(text: string, lastKeyWins: boolean): unknown {
  try {
    return parseWithLibrary(text, 'input.yaml', undefined, {
      duplicateKeys: lastKeyWins ? 'last-wins' : 'refuse',
    });
  } catch {
    return 'refused';
  }
}

/**
 * The fast path either declines the text or gives exactly the library's documents and lines; a
 * duplicate key it reports, the library refuses.
 */
function assertSameAsLibrary(text: string, lastKeyWins = false): boolean {
  const fast = loadPlainYaml(text, lastKeyWins, limits);
  if (fast === undefined) return false;
  const expected = Array.isArray(fast) ? fast : 'refused';
  assert.deepEqual(expected, libraryResult(text, lastKeyWins), `for the text:\n${text}`);
  return true;
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.ya?ml$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** Text that YAML treats specially, spliced into valid documents to make awkward and broken ones. */
const splice = fc.constantFrom(
  ': ',
  '- ',
  '#',
  ' #x',
  '\t',
  '"',
  "'",
  '? ',
  '|',
  '>',
  '{',
  '[',
  ']',
  ',',
  '\n',
  '\n  ',
  '---\n',
  '...\n',
  '&a ',
  '*a',
  '&b ',
  ' *b',
  '&c [*a, *a]\n',
  '*c\n',
  '~',
  'null',
  '0o17',
  '0x1F',
  '1_000',
  '0b11',
  '.inf',
  '-.5',
  '1e3',
  '+12',
  'True',
  'yes',
  '\\',
  '%YAML 1.1\n',
  '!!str ',
  ' !!str 1',
  ': !!str "x"',
  '- !!str a',
  ' !!int 1',
  ': !!bool true',
  '- !!null ~',
  ': !!float "2"',
  ': !!int 1.5',
  ': !!binary aGk=',
  '- !!binary 4oI=',
  ': !!binary aGk',
  ': !!timestamp 2001-12-14',
  ' !!timestamp "2001-12-14t21:59:43.10-05:00"',
  ': !!timestamp 1',
  '<<: ',
  ' <<: {}',
  '<<: []\n',
  ':\t',
  '\t#',
  ' \t',
  '-\t',
  '\t\n',
);

const jsonValue: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string(),
    // Long enough to be folded over lines, with what the fast path must tell inside text from outside.
    fc.string({
      minLength: 70,
      maxLength: 200,
      unit: fc.constantFrom('a', ' ', ' ', '!', '?', '[', ']', ':', '#', '-', "'", '"', '\n', '|', '>', '1'),
    }),
    fc.constantFrom('0755', '1.50', 'on', 'null', '', '- x', 'a: b', 'x\ny', '2024-01-02'),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string(), tie('value'), { maxKeys: 4 }),
  ),
})).value;

describe('the js-yaml fast path reads YAML as the yaml library does', () => {
  it('for every YAML file of the repository’s corpora, fixtures and examples', () => {
    let taken = 0;
    // Not the real-world corpus's expected output: 7 MB of kubectl's printing of inputs read here
    // already, in the one style the other corpora's expected files have too.
    const files = [
      ...yamlFiles(path.join(repoRoot, 'test')),
      ...yamlFiles(path.join(repoRoot, 'examples')),
    ].filter((file) => !/conformance\/corpus\/real-world\/cases\/[^/]+\/expected\//u.test(file));
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      if (assertSameAsLibrary(text)) taken++;
      assertSameAsLibrary(text, true);
    }
    assert.ok(
      taken > files.length / 2,
      `the fast path took only ${String(taken)} of ${String(files.length)} files`,
    );
  });

  it('for generated documents, in the library’s block and flow styles, with text spliced in anywhere', () => {
    const documents = fc.tuple(fc.array(jsonValue, { minLength: 1, maxLength: 3 }), fc.boolean());
    const edits = fc.array(fc.tuple(fc.nat(), splice), { maxLength: 3 });
    fc.assert(
      fc.property(documents, edits, fc.boolean(), ([values, flow], spliced, lastKeyWins) => {
        let text = values
          .map((value) => (flow ? `${JSON.stringify(value)}\n` : stringifyWithLibrary(value)))
          .join('---\n');
        for (const [at, piece] of spliced) {
          const offset = at % (text.length + 1);
          text = text.slice(0, offset) + piece + text.slice(offset);
        }
        assertSameAsLibrary(text, lastKeyWins);
      }),
      { numRuns: 3000, seed: 16 },
    );
  });

  it('declines what only the library reads: nested aliases, directives, tags, …, and nesting past the limit', () => {
    for (const text of [
      'a: &x [*y]\n',
      'y: &y 1\nx: &x [*y]\nz: *x\n',
      '%YAML 1.1\n---\na: yes\n',
      'a\n...\n---#\nb\n',
      'a: !!binary |\n  aGk=\n',
      'a: !!set {b: null}\n',
      'a: &k [1]\n*k : y\n',
      'a: !!str\n',
      'a: !!str "b\n  c"\n',
      '- !!str a: b\n',
      'a: !!str b # c\n',
      '!!str a: b\n',
      '? a\n: b\n',
      'a: .inf\n',
      '~: a\n',
    ]) {
      assert.equal(loadPlainYaml(text, false, limits), undefined, text);
    }
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]', 'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]'];
    bomb.push(`c: [${Array.from({ length: 200 }, () => '*b').join(', ')}]`);
    assert.equal(loadPlainYaml(bomb.join('\n'), false, limits), undefined);
    const flat = `a: &a {x: 1}\nb: [${Array.from({ length: 50 }, () => '*a').join(', ')}]\n`;
    assert.ok(
      assertSameAsLibrary(flat),
      'an anchor without aliases inside, used 50 times, is read by js-yaml',
    );
    const deep = `${'['.repeat(MAX_YAML_DEPTH + 1)}${']'.repeat(MAX_YAML_DEPTH + 1)}\n`;
    assert.equal(loadPlainYaml(deep, false, limits), undefined);
  });

  it('takes merge keys, and leaves a mapping with two of them to the library', () => {
    const text = 'a: &a {x: 1}\nb: &b {y: 2}\nc:\n  <<: [*a, *b]\n  x: 3\nd: {<<: *b, z: 4}\n';
    assert.ok(assertSameAsLibrary(text), 'the fast path declined merge keys');
    assert.equal(loadPlainYaml('a: &a {x: 1}\nc:\n  <<: *a\n  <<: *a\n', false, limits), undefined);
  });

  it('takes a `!!binary` and a `!!timestamp` tag before a value alone on its line', () => {
    assert.ok(
      assertSameAsLibrary('a: !!binary aGk=\nb:\n- !!timestamp 2001-12-14\n'),
      'the fast path declined them',
    );
  });

  it('takes a `!!str` tag before a value, reports a duplicate key both libraries see, and reports each `$`', () => {
    assert.ok(
      assertSameAsLibrary('a: !!str 1\nb:\n- !!str "x"\n- !!str on\n'),
      'the fast path declined !!str',
    );
    assert.deepEqual(loadPlainYaml('a: 1\nb: 2\na: 3\n', false, limits), { duplicateKeyLine: 3 });
    assert.equal(loadPlainYaml('1: a\n"1": b\n', false, limits), undefined);
    assert.equal(loadPlainYaml('&k a: 1\n*k : 2\n', false, limits), undefined);
    const dollars: DollarScalar[] = [];
    const text = 'a: $(x)\nb:\n- "$(y)"\n- |\n  $(z)\n$(k): 1\n';
    assert.ok(Array.isArray(loadPlainYaml(text, false, limits, dollars)));
    assert.deepEqual(
      dollars.map(({ value, plain, line }) => [value, plain, line]),
      [
        ['$(x)', true, 1],
        ['$(y)', false, 3],
        ['$(z)\n', false, 4],
        ['$(k)', true, 6],
      ],
    );
    assert.equal(loadPlainYaml('a: !!str $(x)\n', false, limits, []), undefined);
  });

  it('takes what looks like a tag, a key, an empty entry or a tab where it is text, as CRDs and ConfigMaps hold them', () => {
    const crd = [
      'spec:',
      '  additionalPrinterColumns:',
      '  - jsonPath: .status.conditions[?(@.type=="Ready")].status',
      '    name: Ready',
      '  description: |-',
      '    Hello !world, see [1]: the list',
      '    -',
      '    - # not a comment',
      '    : not a key',
      '    a|2 b',
      "  rule: 'self.mode == ''Terminate'' ? size(self.refs)",
      "    > 0 : true'",
      '  pattern: "^[a-z]#?$"',
      '',
    ].join('\n');
    assert.ok(assertSameAsLibrary(crd), 'the fast path declined the text');
    const tabs =
      'data:\n  Makefile: |\n    all:\n    \tmake it\n  q: "a\tb"\n# a\tcomment\nb: c # and\there\n';
    assert.ok(
      assertSameAsLibrary(tabs),
      'the fast path declined tabs in block and quoted scalars and comments',
    );
    for (const outside of [
      'a: !x b\n',
      '? a\n: b\n',
      'a:\n- \n',
      '[a]: b\n',
      'a: |2\n   b\n',
      'a: "b"#c\n',
      '{"a":, [b]}\n',
      '{"a":#c\n}\n',
    ]) {
      assert.equal(loadPlainYaml(outside, false, limits), undefined, outside);
    }
  });
});
