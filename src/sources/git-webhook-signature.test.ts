import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { verifyWebhookSignature } from './git-webhook-signature.ts';

const SECRET = 'webhook-secret';
const BODY = Buffer.from('{"ref":"refs/heads/main","after":"0123"}');
const hex = (secret = SECRET, body = BODY): string => createHmac('sha256', secret).update(body).digest('hex');

describe('verifyWebhookSignature', () => {
  it('accepts each provider signed with the secret', () => {
    assert.equal(
      verifyWebhookSignature({ 'x-hub-signature-256': `sha256=${hex()}` }, BODY, SECRET),
      'github',
    );
    assert.equal(verifyWebhookSignature({ 'x-gitlab-token': SECRET }, BODY, SECRET), 'gitlab');
    assert.equal(verifyWebhookSignature({ 'x-gitea-signature': hex() }, BODY, SECRET), 'gitea');
    assert.equal(verifyWebhookSignature({ 'x-forgejo-signature': hex() }, BODY, SECRET), 'forgejo');
    assert.equal(verifyWebhookSignature({ 'x-signature': `sha256=${hex()}` }, BODY, SECRET), 'generic');
  });

  it('accepts an upper-case hex digest', () => {
    const upper = `sha256=${hex().toUpperCase()}`;
    assert.equal(verifyWebhookSignature({ 'x-hub-signature-256': upper }, BODY, SECRET), 'github');
  });

  it('refuses a missing signature, another secret, another body, and the wrong form', () => {
    assert.equal(verifyWebhookSignature({}, BODY, SECRET), undefined);
    assert.equal(
      verifyWebhookSignature({ 'x-hub-signature-256': `sha256=${hex('other')}` }, BODY, SECRET),
      undefined,
    );
    const tampered = Buffer.from('{"ref":"refs/heads/evil"}');
    assert.equal(
      verifyWebhookSignature({ 'x-hub-signature-256': `sha256=${hex()}` }, tampered, SECRET),
      undefined,
    );
    assert.equal(verifyWebhookSignature({ 'x-hub-signature-256': hex() }, BODY, SECRET), undefined);
    assert.equal(verifyWebhookSignature({ 'x-gitea-signature': `sha256=${hex()}` }, BODY, SECRET), undefined);
    assert.equal(verifyWebhookSignature({ 'x-gitlab-token': `${SECRET}x` }, BODY, SECRET), undefined);
    assert.equal(verifyWebhookSignature({ 'x-gitlab-token': '' }, BODY, SECRET), undefined);
  });

  it('refuses a repeated header and never matches an empty secret', () => {
    const twice = [`sha256=${hex()}`, `sha256=${hex()}`];
    assert.equal(verifyWebhookSignature({ 'x-hub-signature-256': twice }, BODY, SECRET), undefined);
    assert.equal(verifyWebhookSignature({ 'x-gitlab-token': '' }, BODY, ''), undefined);
  });
});
