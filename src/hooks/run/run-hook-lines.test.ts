import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OutputLineSplitter, OutputTail, type OutputLine } from './run-hook-lines.ts';

function split(chunks: readonly (string | Buffer)[], maxLineBytes = 16): OutputLine[] {
  const lines: OutputLine[] = [];
  const splitter = new OutputLineSplitter(maxLineBytes, (line) => lines.push(line));
  for (const chunk of chunks) splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  splitter.end();
  return lines;
}

const texts = (lines: readonly OutputLine[]): string[] => lines.map((line) => line.text);

describe('OutputLineSplitter', () => {
  it('joins lines across chunks and drops CR of CRLF endings', () => {
    assert.deepEqual(texts(split(['one\ntw', 'o\r\nthr', 'ee'])), ['one', 'two', 'three']);
  });

  it('keeps empty lines and emits nothing for an empty stream', () => {
    assert.deepEqual(texts(split(['a\n\nb\n'])), ['a', '', 'b']);
    assert.deepEqual(split([]), []);
  });

  it('keeps the head of a long line and counts the dropped bytes', () => {
    assert.deepEqual(split(['0123456789', '0123456789', '\nnext\n'], 8), [
      { text: '01234567', droppedBytes: 12 },
      { text: 'next', droppedBytes: 0 },
    ]);
  });

  it('cuts a long line on a character boundary', () => {
    // 'é' is two bytes: a cut after byte 5 would split the third one.
    assert.deepEqual(split(['ééééé\n'], 5), [{ text: 'éé', droppedBytes: 6 }]);
  });

  it('handles a 10 MB line without a newline in bounded memory', () => {
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const lines: OutputLine[] = [];
    const splitter = new OutputLineSplitter(1024, (line) => lines.push(line));
    for (let sent = 0; sent < 10 * 1024 * 1024; sent += chunk.length) splitter.push(chunk);
    splitter.end();
    assert.deepEqual(
      lines.map((line) => [line.text.length, line.droppedBytes]),
      [[1024, 10 * 1024 * 1024 - 1024]],
    );
  });
});

describe('OutputTail', () => {
  it('keeps the last lines within the size limit', () => {
    const tail = new OutputTail(10);
    for (const line of ['first', 'second', 'third']) tail.add(line);
    assert.equal(tail.text(), 'third');
    tail.add('4');
    assert.equal(tail.text(), 'third\n4');
  });
});
