import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { requestUrlTemplate } from './request-url-template.ts';

const SERVER = 'https://127.0.0.1:6443';

function template(pathAndQuery: string): string {
  return requestUrlTemplate(new URL(pathAndQuery, SERVER)).slice(SERVER.length);
}

describe("requestUrlTemplate (client-go's finalURLTemplate)", () => {
  it('replaces namespace and name, and every query value', () => {
    assert.equal(
      template('/api/v1/namespaces/kube-system/configmaps?watch=true&labelSelector=a%3Db'),
      '/api/v1/namespaces/%7Bnamespace%7D/configmaps?labelSelector=%7Bvalue%7D&watch=%7Bvalue%7D',
    );
    assert.equal(
      template('/apis/apps/v1/namespaces/web/deployments/echo'),
      '/apis/apps/v1/namespaces/%7Bnamespace%7D/deployments/%7Bname%7D',
    );
  });

  it('tells a cluster-scoped name and its status or finalize subresource from a namespace', () => {
    assert.equal(template('/api/v1/namespaces/web'), '/api/v1/namespaces/%7Bname%7D');
    assert.equal(template('/api/v1/namespaces/web/finalize'), '/api/v1/namespaces/%7Bname%7D/finalize');
    assert.equal(template('/api/v1/nodes/n1/status'), '/api/v1/nodes/%7Bname%7D/status');
    assert.equal(
      template('/api/v1/namespaces/web/pods/p1/status'),
      '/api/v1/namespaces/%7Bnamespace%7D/pods/%7Bname%7D/status',
    );
  });

  it('keeps collections and discovery as they are, and hides paths outside /api and /apis', () => {
    assert.equal(template('/apis/apps/v1/deployments'), '/apis/apps/v1/deployments');
    assert.equal(template('/apis/apps/v1'), '/apis/apps/v1');
    assert.equal(template('/version'), '/version');
    assert.equal(template('/openapi/v2?timeout=32s'), '/%7Bprefix%7D');
  });
});
