import fc from 'fast-check';
import { after, before, describe, it } from 'node:test';
import { serversAnswerBadInputWith4xx, startFuzzedServers, type FuzzedServers } from './server-arbitrary.ts';

/**
 * Random methods, targets, headers and bodies at the debug socket and at the HTTP port with the Git
 * webhook (test/hostile/server-arbitrary.ts): never a 5xx, never an error or a stack in the log, and
 * each server still answers afterwards. A bounded run here; `npm run fuzz -- --runs N` runs longer.
 */
describe('the operator servers under random requests', () => {
  let servers: FuzzedServers;
  before(async () => {
    servers = await startFuzzedServers();
  });
  after(() => servers.stop());

  it('answer bad input with a 4xx, log no error, and keep answering', async () => {
    await fc.assert(serversAnswerBadInputWith4xx(servers), { numRuns: 150, seed: 20261128 });
  });
});
