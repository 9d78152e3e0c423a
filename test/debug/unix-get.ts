import { request } from 'node:http';

export interface UnixResponse {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/** One HTTP request over a unix socket, as `curl --unix-socket` makes it. */
export function unixGet(socketPath: string, path: string, method = 'GET'): Promise<UnixResponse> {
  return new Promise((resolve, reject) => {
    const call = request({ socketPath, path, method }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => {
        resolve({
          status: response.statusCode ?? 0,
          contentType: response.headers['content-type'] ?? '',
          body,
        });
      });
    });
    call.on('error', reject);
    call.end();
  });
}
