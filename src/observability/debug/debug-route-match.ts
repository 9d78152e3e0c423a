import { DebugRouteError } from './debug-errors.ts';
import { DEBUG_FORMATS, isDebugFormat, type DebugFormat } from './debug-format.ts';
import type { DebugRoute } from './debug-routes.ts';

export interface MatchedRoute {
  readonly route: DebugRoute;
  readonly module: string;
  readonly hook: string;
  readonly format: DebugFormat;
}

const EXTENSION = /\.(json|yaml|text)$/u;

/**
 * Finds the route of a request path. The format is the `format` query parameter, else the path's extension as
 * addon-operator writes it (`/global/values.json`), else text (docs/observability.md "Debug socket").
 */
export function matchDebugRoute(routes: readonly DebugRoute[], url: URL): MatchedRoute {
  const extension = EXTENSION.exec(url.pathname)?.[1];
  const segments = splitPath(url.pathname.replace(EXTENSION, ''));
  const format = url.searchParams.get('format') ?? extension ?? 'text';
  if (!isDebugFormat(format)) {
    throw new DebugRouteError(
      'debug-bad-request',
      `format '${format}': not a debug output format.`,
      `Use one of ${DEBUG_FORMATS.join(', ')}.`,
    );
  }
  for (const route of routes) {
    const params = matchSegments(splitPath(route.path), segments);
    if (params) return { route, format, module: params.module ?? '', hook: params.hook ?? '' };
  }
  throw new DebugRouteError(
    'debug-not-found',
    `debug route '${url.pathname}': not found.`,
    'GET /discovery lists the routes.',
  );
}

function splitPath(path: string): string[] {
  return path.split('/').filter((segment) => segment !== '');
}

function matchSegments(
  pattern: readonly string[],
  segments: readonly string[],
): { module?: string; hook?: string } | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: { module?: string; hook?: string } = {};
  for (const [i, part] of pattern.entries()) {
    const segment = segments[i] ?? '';
    if (part === '{module}') params.module = decodeSegment(segment);
    else if (part === '{hook}') params.hook = decodeSegment(segment);
    else if (part !== segment) return undefined;
  }
  return params;
}

/** A percent-decoded path segment; bad percent-encoding (`%ff`, `%E0%A4%A`) is the client's error. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new DebugRouteError(
      'debug-bad-request',
      `path segment '${segment}': not valid percent-encoded UTF-8.`,
      'Encode the name with encodeURIComponent, as the kaddon commands do.',
    );
  }
}
