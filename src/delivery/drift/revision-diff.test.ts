import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { revisionDiff } from './revision-diff.ts';

const SECRET_VALUE = 's3cr3t-hunter2';
const NEW_SECRET_VALUE = 'n3w-s3cr3t-value';

function manifest(...documents: string[]): string {
  return documents.map((document) => `---\n# Source: shop/templates/manifest.yaml\n${document}\n`).join('');
}

const secret = (value: string): string =>
  `apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\n  namespace: shop\ndata:\n  password: ${Buffer.from(value).toString('base64')}\n  user: YWRtaW4=\nstringData:\n  token: ${value}`;
const configMap = (replicas: string): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: shop\ndata:\n  replicas: "${replicas}"`;

describe('the difference between two revisions of a release', () => {
  const from = {
    name: 'shop',
    version: 3,
    manifest: manifest(configMap('2'), secret(SECRET_VALUE)),
    config: { _kaddonModuleChecksum: 'aaa' },
  };

  it('shows changed release values and objects, and never a Secret value nor its base64', () => {
    const to = {
      name: 'shop',
      version: 4,
      manifest: manifest(
        configMap('3'),
        secret(NEW_SECRET_VALUE),
        'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop',
      ),
      config: { _kaddonModuleChecksum: 'bbb' },
    };
    const text = revisionDiff(from, to);
    assert.match(text, /^~ release values changed$/mu);
    assert.match(text, /^-_kaddonModuleChecksum: aaa$/mu);
    assert.match(text, /^\+_kaddonModuleChecksum: bbb$/mu);
    assert.match(text, /^~ ConfigMap shop\/settings changed$/mu);
    assert.match(text, /^- {2}replicas: "2"$/mu);
    assert.match(text, /^\+ {2}replicas: "3"$/mu);
    assert.match(text, /^\+ Namespace shop created$/mu);
    assert.match(text, /^~ Secret shop\/db changed$/mu);
    assert.match(text, /^- {2}password: '\*\*\* \(before\)'$/mu);
    assert.match(text, /^\+ {2}password: '\*\*\* \(after\)'$/mu);
    assert.ok(!text.includes('YWRtaW4='), 'nor an unchanged one');
    for (const value of [SECRET_VALUE, NEW_SECRET_VALUE])
      for (const form of [value, Buffer.from(value).toString('base64')])
        assert.ok(!text.includes(form), `${form} is not in the diff`);
  });

  it('masks a deleted Secret, and is empty for revisions that hold the same', () => {
    const to = { ...from, version: 4, manifest: manifest(configMap('2')) };
    const text = revisionDiff(from, to);
    assert.match(text, /^- Secret shop\/db deleted$/mu);
    assert.match(text, /^- {2}password: '\*\*\*'$/mu);
    assert.ok(!text.includes(SECRET_VALUE) && !text.includes(Buffer.from(SECRET_VALUE).toString('base64')));
    assert.equal(revisionDiff(from, { ...from, version: 5 }), '');
  });
});
