import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cleanText, cutToBytes, escapeForTerminal, hasUnsafeCharacters } from './untrusted-text.ts';

describe('cleanText', () => {
  it('strips ANSI escapes and replaces control characters, bidi controls and lone surrogates', () => {
    const text = '\u001b[31mred\u001b[0m \u001b]0;title\u0007ok\ra\u0000b\u202ec\uD800d\u009b1me';
    assert.equal(cleanText(text, { maxBytes: 100 }), 'red ok\uFFFDa\uFFFDb\uFFFDc\uFFFDde');
  });

  it('keeps line feeds and tabs only when asked', () => {
    assert.equal(cleanText('a\nb\tc', { maxBytes: 100 }), 'a b c');
    assert.equal(cleanText('a\nb\tc', { maxBytes: 100, keepLineFeeds: true }), 'a\nb\tc');
  });

  it('cuts to a byte count at a character boundary, the ellipsis included', () => {
    const cut = cutToBytes('é'.repeat(1000), 1024);
    assert.ok(Buffer.byteLength(cut) <= 1024);
    assert.ok(cut.endsWith('…'));
    assert.equal(cutToBytes('short', 1024), 'short');
  });
});

describe('hasUnsafeCharacters', () => {
  it('finds controls, bidi controls and lone surrogates, not ordinary unicode', () => {
    for (const text of ['a\nb', 'a\rb', 'a\u0000', '\u202e', '\u2066x', 'a\uD800', '\uDC00b'])
      assert.equal(hasUnsafeCharacters(text), true, JSON.stringify(text));
    for (const text of ['plain', 'é ü 😀', '"quoted" \\ back'])
      assert.equal(hasUnsafeCharacters(text), false, text);
  });
});

describe('escapeForTerminal', () => {
  it('writes what a terminal acts on as \\uXXXX, keeps tab, line feed and ordinary unicode', () => {
    const text = '\u001b]0;t\u0007|\u009b1m|\r|\u202e|\u2066|\u2028|\uD800|\té\n日本';
    assert.equal(
      escapeForTerminal(text),
      '\\u001b]0;t\\u0007|\\u009b1m|\\u000d|\\u202e|\\u2066|\\u2028|\\ud800|\té\n日本',
    );
  });

  it('leaves JSON the same JSON', () => {
    const value = { a: '\u0085\u202e\u2069x', b: ['\u001b[2J'] };
    assert.deepEqual(JSON.parse(escapeForTerminal(JSON.stringify(value))), value);
  });
});
