import https from 'node:https';

/** What it takes to talk to the test cluster's API as its admin. */
export interface ApiCredentials {
  readonly server: string;
  readonly caPem: string;
  readonly clientCertPem: string;
  readonly clientKeyPem: string;
}

export interface ApiResponse {
  readonly status: number;
  readonly body: string;
}

/** One HTTPS request with client-certificate auth; a JSON body is sent as JSON. */
export function requestApi(
  credentials: ApiCredentials,
  method: string,
  apiPath: string,
  body?: unknown,
  timeoutMs = 10_000,
): Promise<ApiResponse> {
  const url = new URL(apiPath, credentials.server);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers = payload === undefined ? {} : { 'content-type': 'application/json' };
  const tls = { ca: credentials.caPem, cert: credentials.clientCertPem, key: credentials.clientKeyPem };
  return new Promise((resolve, reject) => {
    const request = https.request(url, { method, headers, ...tls, timeout: timeoutMs }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => {
        resolve({ status: response.statusCode ?? 0, body: text });
      });
      response.on('error', reject);
    });
    request.on('timeout', () =>
      request.destroy(new Error(`${method} ${apiPath} timed out after ${timeoutMs} ms`)),
    );
    request.on('error', reject);
    request.end(payload);
  });
}
