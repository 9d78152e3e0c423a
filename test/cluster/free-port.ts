import net from 'node:net';
import { ClusterError } from './cluster-error.ts';

/** A loopback TCP port the kernel just had free; the server binds it right after. */
export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', (cause) => {
      reject(
        new ClusterError(
          'port-unavailable',
          "test cluster 'ports'",
          `no free port on 127.0.0.1 (${cause.message})`,
          'Free some loopback ports or stop other test clusters.',
          { cause },
        ),
      );
    });
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => {
        resolve(port);
      });
    });
  });
}
