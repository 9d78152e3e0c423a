import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { once } from 'node:events';

/** A loopback TCP port that was free a moment ago. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  server.close();
  await once(server, 'close');
  return port;
}

export interface GitDaemon {
  readonly port: number;
  url(repo: string): string;
  stop(): Promise<void>;
}

/** `git daemon` serving every repository under `baseDir`, read-only, on 127.0.0.1. */
export async function startGitDaemon(baseDir: string, port?: number): Promise<GitDaemon> {
  const chosen = port ?? (await freePort());
  const child = spawn(
    'git',
    [
      'daemon',
      '--reuseaddr',
      '--export-all',
      '--listen=127.0.0.1',
      `--port=${chosen}`,
      `--base-path=${baseDir}`,
      baseDir,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  await waitForPort(chosen, child);
  return {
    port: chosen,
    url: (repo) => `git://127.0.0.1:${chosen}/${repo}`,
    stop: () => stopChild(child),
  };
}

async function waitForPort(port: number, child: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`git daemon exited with ${child.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => {
        resolve(false);
      });
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`git daemon did not listen on ${port}`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

export interface GitHttpServer {
  url(repo: string): string;
  /** Every Authorization header the server received, to show what went over the wire. */
  readonly authorizations: string[];
  stop(): Promise<void>;
}

/**
 * `git http-backend` as CGI behind a Node HTTP server on 127.0.0.1, asking for basic auth. Plain
 * HTTP on loopback stands in for HTTPS: git sends the same credentials either way.
 */
export async function startGitHttpServer(
  baseDir: string,
  credentials: { username: string; password: string },
): Promise<GitHttpServer> {
  const expected = `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;
  const authorizations: string[] = [];
  const server = http.createServer((request, response) => {
    const authorization = request.headers.authorization;
    if (authorization !== undefined) authorizations.push(authorization);
    if (authorization !== expected) {
      response.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' }).end();
      return;
    }
    runCgi(baseDir, request, response, credentials.username);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: (repo) => `http://127.0.0.1:${port}/${repo}`,
    authorizations,
    stop: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

function runCgi(
  baseDir: string,
  request: http.IncomingMessage,
  response: http.ServerResponse,
  user: string,
): void {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const child = spawn('git', ['http-backend'], {
    env: {
      PATH: process.env.PATH,
      GIT_PROJECT_ROOT: baseDir,
      GIT_HTTP_EXPORT_ALL: '1',
      REMOTE_USER: user,
      REQUEST_METHOD: request.method ?? 'GET',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: request.headers['content-type'] ?? '',
      HTTP_CONTENT_ENCODING: request.headers['content-encoding'] ?? '',
      HTTP_GIT_PROTOCOL: String(request.headers['git-protocol'] ?? ''),
    },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  request.pipe(child.stdin);
  let head = Buffer.alloc(0);
  let headerDone = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (headerDone) {
      response.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    headerDone = true;
    writeCgiHead(response, head.subarray(0, end).toString('latin1'));
    response.write(head.subarray(end + 4));
  });
  child.stdout.on('end', () => response.end());
}

function writeCgiHead(response: http.ServerResponse, text: string): void {
  let status = 200;
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
    else response.setHeader(name, value);
  }
  response.writeHead(status);
}
