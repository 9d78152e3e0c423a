import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { loadOperatorConfig } from './operator-config.ts';

const signIn = {
  ADDON_OPERATOR_NAMESPACE: 'kaddon',
  KADDON_UI_OIDC_ISSUER: 'https://login.example.com/',
  KADDON_UI_OIDC_CLIENT_ID: 'kaddon',
  KADDON_UI_OIDC_REDIRECT_URL: 'https://kaddon.example.com/ui/auth/callback',
};
const dir = mkdtempSync(path.join(tmpdir(), 'kaddon-sign-in-config-'));
after(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('the status page sign-in settings', () => {
  it('is off without an issuer, and reads the defaults of the API server flags with one', () => {
    assert.equal(loadOperatorConfig({ ADDON_OPERATOR_NAMESPACE: 'kaddon' }).uiSignIn, undefined);
    const config = loadOperatorConfig(signIn).uiSignIn;
    assert.ok(config);
    assert.equal(config.issuer.href, 'https://login.example.com/');
    assert.equal(config.scopes, 'openid profile email');
    assert.equal(config.usernameClaim, 'sub');
    assert.equal(config.groupsClaim, 'groups');
    assert.equal(config.usernamePrefix, '');
    assert.equal(config.clientSecret, undefined);
    assert.equal(config.sessionKey, undefined);
    assert.equal(config.sessionTtlMs, 8 * 3_600_000);
    const scoped = loadOperatorConfig({ ...signIn, KADDON_UI_OIDC_SCOPES: 'groups,email' }).uiSignIn;
    assert.equal(scoped?.scopes, 'openid groups email');
  });

  it('refuses what would make sign-in unsafe or unusable, naming the setting', () => {
    const refused: [Record<string, string>, RegExp][] = [
      [{ KADDON_UI_OIDC_ISSUER: 'http://login.example.com/' }, /KADDON_UI_OIDC_ISSUER.*plain http/u],
      [{ KADDON_UI_OIDC_ISSUER: 'login.example.com' }, /KADDON_UI_OIDC_ISSUER.*not an http\(s\) URL/u],
      [
        { KADDON_UI_OIDC_REDIRECT_URL: 'https://kaddon.example.com/ui/' },
        /does not end in \/ui\/auth\/callback/u,
      ],
      [{ KADDON_UI_OIDC_CLIENT_ID: '' }, /KADDON_UI_OIDC_CLIENT_ID.*is not set/u],
      [{ KADDON_UI_AUTH: 'off' }, /KADDON_UI_OIDC_ISSUER.*KADDON_UI_AUTH=off/u],
      [{ KADDON_UI_SESSION_KEY: 'short' }, /KADDON_UI_SESSION_KEY.*fewer than 32 bytes/u],
      [{ KADDON_UI_SESSION_TTL: 'forever' }, /KADDON_UI_SESSION_TTL/u],
      [{ KADDON_UI_OIDC_CLIENT_SECRET: 'a', KADDON_UI_OIDC_CLIENT_SECRET_FILE: '/x' }, /set together/u],
      [{ KADDON_UI_OIDC_CLIENT_SECRET_FILE: path.join(dir, 'missing') }, /does not exist/u],
    ];
    for (const [change, message] of refused)
      assert.throws(() => loadOperatorConfig({ ...signIn, ...change }), message, JSON.stringify(change));
    assert.throws(
      () => loadOperatorConfig({ ADDON_OPERATOR_NAMESPACE: 'kaddon', KADDON_UI_OIDC_CLIENT_ID: 'kaddon' }),
      /KADDON_UI_OIDC_CLIENT_ID.*KADDON_UI_OIDC_ISSUER is not/u,
    );
  });

  it('takes plain http to a provider on this machine, and secrets from mounted files', () => {
    const secret = path.join(dir, 'client-secret');
    writeFileSync(secret, 'from-a-secret\n');
    const config = loadOperatorConfig({
      ...signIn,
      KADDON_UI_OIDC_ISSUER: 'http://127.0.0.1:5556/dex',
      KADDON_UI_OIDC_CLIENT_SECRET_FILE: secret,
    }).uiSignIn;
    assert.ok(config);
    assert.equal(config.issuer.host, '127.0.0.1:5556');
    assert.deepEqual(config.clientSecret, { file: secret, setting: 'KADDON_UI_OIDC_CLIENT_SECRET_FILE' });
  });
});
