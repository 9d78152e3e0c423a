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
});
