/** Subresources client-go keeps after `{name}` rather than taking them for a resource. */
const NAMED_SUBRESOURCES = new Set(['finalize', 'status']);

/**
 * The `url` label of kubernetes_client_request_latency_seconds, as client-go's
 * `Request.finalURLTemplate` builds it: namespace and name replaced by `{namespace}` and `{name}`,
 * every query value by `{value}` (keys sorted), so the label stays low in cardinality.
 */
export function requestUrlTemplate(url: URL): string {
  const template = new URL(url.origin);
  const path = templatePath(url.pathname);
  if (path === undefined) {
    template.pathname = '/{prefix}';
    return template.href;
  }
  template.pathname = path;
  const keys = [...new Set(url.searchParams.keys())].sort();
  template.search = keys.map((key) => `${encodeURIComponent(key)}=%7Bvalue%7D`).join('&');
  return template.href;
}

/** undefined for a path outside /api and /apis. */
function templatePath(pathname: string): string | undefined {
  const segments = pathname.split('/');
  if (segments.length <= 2) return pathname;
  const index = segments[1] === 'api' ? 3 : segments[1] === 'apis' ? 4 : undefined;
  if (index === undefined) return undefined;
  const rest = segments.length - index;
  if (rest === 2) {
    segments[index + 1] = '{name}';
  } else if (rest === 3) {
    segments[index + 1] = NAMED_SUBRESOURCES.has(segments[index + 2] ?? '') ? '{name}' : '{namespace}';
  } else if (rest >= 4) {
    segments[index + 1] = '{namespace}';
    if (!NAMED_SUBRESOURCES.has(segments[index + 3] ?? '')) segments[index + 3] = '{name}';
  }
  return segments.join('/');
}
