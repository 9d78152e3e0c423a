/**
 * The URL of a request target, or undefined when none can be made of it (`*`, `http://x:99999/`):
 * such a request is answered 400. An origin-form target is a path, so `//[` is the path `//[`, not a
 * host (RFC 9112 section 3.2).
 */
export function parseRequestTarget(target: string | undefined): URL | undefined {
  const text = target ?? '/';
  const url = text.startsWith('/') ? `http://localhost${text}` : text;
  return URL.canParse(url) ? new URL(url) : undefined;
}

/**
 * Bounds of the operator's HTTP server and debug socket against clients that send slowly or never
 * (docs/lifecycle.md "Bounds and timeouts"): the whole request within 30 s, its headers within 10 s,
 * an idle kept-alive connection for 5 s. Node checks them every second.
 */
export const SERVER_TIMEOUTS = {
  requestTimeout: 30_000,
  headersTimeout: 10_000,
  keepAliveTimeout: 5_000,
  connectionsCheckingInterval: 1_000,
} as const;
