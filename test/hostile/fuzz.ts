import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { hasKubectl } from '../kubectl.ts';
import { generatedInputsBehave } from './kustomization-arbitrary.ts';
import { serversAnswerBadInputWith4xx, startFuzzedServers } from './server-arbitrary.ts';

/**
 * `npm run fuzz -- [--runs 500] [--seed N]`: the generative tests of npm test, run longer: generated
 * kustomizations and modules trees, then random requests at the debug socket and the HTTP port.
 */
const { values } = parseArgs({
  options: { runs: { type: 'string', default: '500' }, seed: { type: 'string' } },
});
const withKubectl = hasKubectl();
const started = performance.now();
const result = await fc.check(generatedInputsBehave(withKubectl), {
  numRuns: Number(values.runs),
  ...(values.seed ? { seed: Number(values.seed) } : {}),
});
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(
  `${String(result.numRuns)} generated kustomizations and modules trees in ${seconds} s (kubectl ${withKubectl ? 'compared' : 'absent'}), seed ${String(result.seed)}`,
);
if (result.failed) {
  console.log(`FAILED after ${String(result.numRuns)} runs:\n${String(result.errorInstance)}`);
  process.exitCode = 1;
} else console.log('no failure');

const servers = await startFuzzedServers();
const serverStarted = performance.now();
const requests = await fc.check(serversAnswerBadInputWith4xx(servers), {
  numRuns: Number(values.runs),
  ...(values.seed ? { seed: Number(values.seed) } : {}),
});
await servers.stop();
console.log(
  `${String(requests.numRuns)} random requests at the debug socket and the HTTP port in ${((performance.now() - serverStarted) / 1000).toFixed(1)} s, seed ${String(requests.seed)}`,
);
if (requests.failed) {
  console.log(`FAILED after ${String(requests.numRuns)} runs:\n${String(requests.errorInstance)}`);
  process.exitCode = 1;
} else console.log('no failure');
