import { startWebhookSignatureCheck } from '../../src/sources/git-webhook-signature.ts';
import { createHttpServer } from '../../src/observability/http-server.ts';

/**
 * The operator's HTTP server with the Git webhook route, alone in a process whose memory a test
 * measures: prints `{"port": N}` once it listens, and counts the syncs asked for on each signed
 * request in its answer to GET /metrics (`syncs N`).
 */
let syncs = 0;
const server = createHttpServer({
  address: '127.0.0.1',
  port: 0,
  sources: [{ contentType: 'text/plain', metrics: () => Promise.resolve(`syncs ${String(syncs)}\n`) }],
  gitWebhook: {
    startSignatureCheck: (headers) => startWebhookSignatureCheck(headers, process.argv[2] ?? ''),
    requestSync: () => {
      syncs += 1;
      return true;
    },
  },
});
const { port } = await server.start();
process.stdout.write(`${JSON.stringify({ port })}\n`);
process.on('SIGTERM', () => {
  void server.stop().then(() => process.exit(0));
});
