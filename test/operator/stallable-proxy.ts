import net from 'node:net';

/**
 * A TCP proxy on loopback in front of the API server, whose forwarding can be stalled: bytes stop
 * flowing both ways and new connections are accepted but go nowhere, while no connection is closed
 * or reset, as behind a network path that silently drops packets.
 */
export interface StallableProxy {
  readonly port: number;
  stall(): void;
  close(): Promise<void>;
}

export async function startStallableProxy(target: { host: string; port: number }): Promise<StallableProxy> {
  let stalled = false;
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // A reset while stalled or closing is expected; it must not crash the test.
    socket.on('error', () => undefined);
  };
  const server = net.createServer((client) => {
    track(client);
    if (stalled) {
      client.pause();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    port,
    stall: () => {
      stalled = true;
      for (const socket of sockets) {
        socket.unpipe();
        socket.pause();
      }
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
}
