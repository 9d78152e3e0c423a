import { createServer, type Server, type Socket } from 'node:net';
import { PortForward } from '@kubernetes/client-node';
import { KaddonError } from '../core/errors.ts';
import type { KubeConnection } from './kube-connection.ts';

/** The local port cannot be listened on. */
class LocalPortError extends KaddonError {
  readonly code = 'local-port-unavailable';
  constructor(problem: string, hint: string) {
    super(`local port: ${problem}.`, hint);
  }
}

/** The part of the forward's WebSocket this command uses. */
interface ForwardStream {
  close(): void;
  on(event: 'error', listener: (error: Error) => void): void;
}

export interface PortForwardOptions {
  readonly connection: KubeConnection;
  readonly namespace: string;
  readonly pod: string;
  readonly podPort: number;
  /** Where to listen on this machine; port 0: any free one. */
  readonly address: string;
  readonly port: number;
  /** A forward that failed, each different problem once. */
  readonly onProblem: (text: string) => void;
}

/** A local port forwarded to a Pod's; `close` ends the listener and every forwarded connection. */
export interface LocalPortForward {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * `kubectl port-forward` to one Pod: each connection to the local port gets a stream of its own to
 * the Pod's port through the API server's pods/portforward (client-node's PortForward).
 */
export async function forwardLocalPort(options: PortForwardOptions): Promise<LocalPortForward> {
  const open = new Set<Socket>();
  const server = await listen(
    forwarder(options),
    (socket) => {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
    },
    options.address,
    options.port,
  );
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : options.port,
    close: async () => {
      const closed = new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
      for (const socket of open) socket.destroy();
      await closed;
    },
  };
}

/** Each local connection gets a stream of its own to the Pod's port, through the API server. */
function forwarder({
  connection,
  namespace,
  pod,
  podPort,
  onProblem,
}: PortForwardOptions): (socket: Socket) => void {
  const forward = new PortForward(connection.config, true);
  const told = new Set<string>();
  const tell = (text: string): void => {
    if (told.has(text)) return;
    told.add(text);
    onProblem(text);
  };
  return (socket) => {
    socket.on('error', () => socket.destroy());
    const opening = forward.portForward(namespace, pod, [podPort], socket, null, socket) as Promise<
      ForwardStream | (() => ForwardStream | null)
    >;
    opening
      .then((opened) => {
        const ws = typeof opened === 'function' ? opened() : opened;
        socket.on('close', () => ws?.close());
        ws?.on('error', (error: Error) => {
          tell(`the forward to ${namespace}/${pod} failed: ${error.message}`);
          socket.destroy();
        });
      })
      .catch((error: unknown) => {
        tell(
          `the API server refused the forward to ${namespace}/${pod}: ${error instanceof Error ? error.message : String(error)}`,
        );
        socket.destroy();
      });
  };
}

function listen(
  onConnection: (socket: Socket) => void,
  track: (socket: Socket) => void,
  address: string,
  port: number,
): Promise<Server> {
  const server = createServer((socket) => {
    track(socket);
    onConnection(socket);
  });
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new LocalPortError(
              `port ${String(port)} on ${address} is in use`,
              'Choose another with --port N, or --port 0 for any free port.',
            )
          : error,
      );
    });
    server.listen(port, address, () => {
      resolve(server);
    });
  });
}
