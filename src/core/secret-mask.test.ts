import { createHash } from 'node:crypto';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SecretMask } from './secret-mask.ts';
import { ValuesSchemas } from './values-schema.ts';

describe('SecretMask', () => {
  it("masks a Secret's values as read and in base64, and leaves short values alone", () => {
    const mask = new SecretMask();
    mask.addSecretObject({
      data: { password: Buffer.from('hunter2-long-value').toString('base64'), pin: 'MTIz' },
      stringData: { token: 'tok-abcdef' },
    });
    const text = `pw=hunter2-long-value b64=${Buffer.from('hunter2-long-value').toString('base64')} token=tok-abcdef pin=123`;
    assert.equal(mask.mask(text), 'pw=*** b64=*** token=*** pin=123');
  });

  it('masks the values a schema marks x-kaddon-secret, at any depth', () => {
    const schemas = new ValuesSchemas(
      { kind: 'module', name: 'db' },
      {
        values: {
          file: 'openapi/values.yaml',
          schema: {
            type: 'object',
            properties: {
              password: { type: 'string', 'x-kaddon-secret': true },
              users: {
                type: 'array',
                items: { type: 'object', properties: { key: { type: 'string', 'x-kaddon-secret': true } } },
              },
              host: { type: 'string' },
            },
          },
        },
      },
    );
    const found = schemas.secretValues({
      password: 'p4ssword!',
      users: [{ key: 'user-key-1' }, { key: 'user-key-2' }],
      host: 'db.example',
    });
    assert.deepEqual(found, ['p4ssword!', 'user-key-1', 'user-key-2']);
    const mask = new SecretMask();
    for (const value of found) mask.add(value);
    assert.equal(mask.mask('connect db.example with p4ssword!'), 'connect db.example with ***');
  });

  const PEM = [
    '-----BEGIN PRIVATE KEY-----',
    'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj',
    'MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu',
    'NMoSfm76oqFvAp8Gy0iz5sxjZmSnXyCdPEovGhLa0VzMaQ8s+CLOyS56YyCFGeJZ',
    '-----END PRIVATE KEY-----',
  ].join('\n');
  const LONG =
    'Zk3q9XvTn2Lw8RbYc5MfHa1JdPs7GuEo4KyWx6Qi0NtBv3CmSpZlUgDrFjTe8Ah2Yn5Kc9LwXq1Rb7Mo3VsGi6Pd4Ju0Ez';

  it('masks every line of a multi-line Secret wherever the lines appear, one by one or together', () => {
    const mask = new SecretMask();
    mask.addSecretObject({ data: { 'tls.key': Buffer.from(PEM).toString('base64') } });
    assert.equal(mask.mask(`key:\n${PEM}\nend`), 'key:\n***\nend');
    for (const line of PEM.split('\n')) {
      const logged = mask.mask(`stderr: ${line}`);
      assert.equal(logged, 'stderr: ***', `the line ${line}`);
    }
    assert.equal(mask.mask(PEM.replaceAll('\n', '\r\n')), '***\r\n***\r\n***\r\n***\r\n***');
  });

  it('leaves no 6 characters of a long Secret at whatever place a text is cut', () => {
    const mask = new SecretMask();
    mask.add(LONG);
    const text = `connect: password=${LONG} (retrying)\nnext line`;
    const at = text.indexOf(LONG);
    for (let cut = at; cut <= at + LONG.length; cut++) {
      for (const kept of [
        text.slice(0, cut),
        `${text.slice(0, cut)}…`,
        text.slice(cut),
        `head\n${text.slice(cut)}`,
      ]) {
        const shown = mask.mask(kept);
        assert.ok(!containsPieceOf(shown, LONG, 6), `cut at ${String(cut)}: ${shown}`);
      }
    }
  });

  it('masks runs of 15 characters of a Secret anywhere: a value folded into 40-character lines, its base64 cut', () => {
    const mask = new SecretMask();
    mask.add(LONG);
    const folded = LONG.match(/.{1,40}/gu)?.join('\n') ?? '';
    assert.equal(mask.mask(`password:\n${folded}\ndone`), 'password:\n***\n***\n***\ndone');
    const base64 = Buffer.from(LONG).toString('base64');
    assert.equal(mask.mask(`b64 ${base64.slice(10, 60)} tail`), 'b64 *** tail');
    assert.equal(mask.mask(`x${LONG.slice(30, 45)}y`), 'x***y');
  });

  it('leaves ordinary text alone: short pieces inside a line, and words a Secret does not hold', () => {
    const mask = new SecretMask();
    mask.add(LONG);
    mask.add('hunter2-long-value');
    const text = `module ${LONG.slice(20, 34)} ok, hunter2-long and value\nall fine`;
    assert.equal(mask.mask(text), text);
  });

  it('forgets the oldest values past its budget, and masks the ones it keeps', () => {
    const mask = new SecretMask();
    const value = (i: number): string => createHash('sha256').update(String(i)).digest('hex').slice(0, 24);
    for (let i = 0; i < 12_000; i++) mask.add(value(i));
    assert.equal(mask.mask(`a ${value(1)} b`), `a ${value(1)} b`);
    assert.equal(mask.mask(`a ${value(11_999)} b`), 'a *** b');
  });
});

/** Whether `text` holds `length` characters in a row of `secret`. */
function containsPieceOf(text: string, secret: string, length: number): boolean {
  for (let i = 0; i + length <= secret.length; i++)
    if (text.includes(secret.slice(i, i + length))) return true;
  return false;
}
