import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import * as undici from 'undici';
import { repoRoot } from '../repo-root.ts';

/**
 * The bundle takes Agent, ProxyAgent and fetch from undici's own modules instead of its entry
 * (scripts/undici-parts.mjs): if undici moves them, this fails before an operator does.
 */
describe('scripts/undici-parts.mjs: the parts of undici the bundle uses', () => {
  it('are the Agent and ProxyAgent of undici, and a fetch that requests through a given Agent', async () => {
    const file = pathToFileURL(path.join(repoRoot, 'scripts/undici-parts.mjs')).href;
    const parts = (await import(file)) as Pick<typeof undici, 'Agent' | 'ProxyAgent' | 'fetch'>;
    assert.equal(parts.Agent, undici.Agent);
    assert.equal(parts.ProxyAgent, undici.ProxyAgent);
    const server = createServer((_request, response) => response.end('hello'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const dispatcher = new parts.Agent();
    try {
      const { port } = server.address() as AddressInfo;
      const response = await parts.fetch(`http://127.0.0.1:${String(port)}/`, { dispatcher });
      assert.equal(await response.text(), 'hello');
    } finally {
      await dispatcher.close();
      server.close();
    }
  });
});
