import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { basicAuthForms, createRedactor, redactUrlUserInfo } from './redact-secrets.ts';
import { parseLsRemote } from './git-mirror.ts';
import { sshCommand } from './git-environment.ts';

describe('redaction', () => {
  it('removes URL user-info and every form of a secret', () => {
    assert.equal(
      redactUrlUserInfo("fatal: 'https://u:p@h/x.git' and git@host:x"),
      "fatal: 'https://***@h/x.git' and git@host:x",
    );
    const redact = createRedactor(['tok en/1\n', ...basicAuthForms('me', 'tok en/1')]);
    const base64 = Buffer.from('me:tok en/1').toString('base64');
    assert.equal(redact(`a tok en/1 b tok%20en%2F1 c ${base64}`), 'a *** b *** c ***');
  });
});

describe('parseLsRemote', () => {
  it('reads the HEAD symref and the refs', () => {
    const a = 'a'.repeat(40);
    const parsed = parseLsRemote(`ref: refs/heads/main\tHEAD\n${a}\tHEAD\n${a}\trefs/heads/main\n`);
    assert.equal(parsed.head, 'refs/heads/main');
    assert.equal(parsed.refs.get('refs/heads/main'), a);
  });
});

describe('sshCommand', () => {
  it('uses only the key and checks hosts strictly', () => {
    const command = sshCommand({
      username: undefined,
      passwordFile: undefined,
      tokenFile: undefined,
      sshKeyFile: "/k/it's",
      knownHostsFile: '/k/known',
    });
    assert.equal(
      command,
      `ssh -o BatchMode=yes -i '/k/it'\\''s' -o IdentitiesOnly=yes -o 'UserKnownHostsFile=/k/known' -o StrictHostKeyChecking=yes`,
    );
  });
});
