import assert from 'node:assert/strict';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { TokenFile, TokenFileError } from './token-file.ts';

describe('TokenFile', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kaddon-token-'));
  const file = path.join(dir, 'token');

  it('reads the token without surrounding whitespace, and again as soon as the file is swapped', () => {
    writeFileSync(file, 'first\n');
    const token = new TokenFile(file);
    assert.equal(token.token(), 'first');
    writeFileSync(path.join(dir, 'next'), 'second');
    renameSync(path.join(dir, 'next'), file);
    assert.equal(token.token(), 'second');
  });

  it('keeps the last token while the file is missing, and says which file when it never had one', () => {
    writeFileSync(file, 'kept');
    const token = new TokenFile(file);
    assert.equal(token.token(), 'kept');
    rmSync(file);
    assert.equal(token.token(), 'kept');
    assert.throws(
      () => new TokenFile(path.join(dir, 'absent')).token(),
      (error: unknown) => error instanceof TokenFileError && error.message.includes(path.join(dir, 'absent')),
    );
  });

  it('reads the file again after a minute, or at once after the server refused the token', () => {
    writeFileSync(file, 'one');
    const token = new TokenFile(file);
    const start = Date.now();
    assert.equal(token.token(start), 'one');
    writeFileSync(file, 'two');
    token.forget();
    assert.equal(token.token(start + 2000), 'two');
    writeFileSync(file, 'six');
    assert.equal(token.token(start + 70_000), 'six');
  });
});
