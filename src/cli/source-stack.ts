import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A stack frame's location in a bundle file: `file:///…/dist/chunk-X.js:12:34`. */
const BUNDLE_FRAME = /(file:\/\/[^\s()]+\.m?js):(\d+):(\d+)/g;

/**
 * A stack trace with each frame of the bundle in dist/ turned into the src/ file, line and column
 * it was built from, read from the bundle's source maps (`chunk.js.map` beside each chunk). This
 * is what Node's own source-map support prints, done only when a bug's trace is printed (exit 70):
 * turned on for every start, Node's costs 10–14 ms of each (docs/performance.md "Start-up").
 * Frames with no map, or no entry in it, are left as they are.
 */
export function stackWithSources(stack: string): string {
  try {
    return mapFrames(stack);
  } catch {
    // The trace as Node gave it beats none at all.
    return stack;
  }
}

function mapFrames(stack: string): string {
  const maps = new Map<string, SourceMap | undefined>();
  return stack.replaceAll(BUNDLE_FRAME, (frame, url: string, line: string, column: string) => {
    let file: string;
    try {
      file = fileURLToPath(url);
    } catch {
      return frame;
    }
    if (!maps.has(file)) maps.set(file, readSourceMap(file));
    const entry = maps.get(file)?.findEntry(Number(line) - 1, Number(column) - 1);
    if (entry === undefined || !('originalSource' in entry)) return frame;
    const source = entry.originalSource.startsWith('file://')
      ? fileURLToPath(entry.originalSource)
      : path.resolve(path.dirname(file), entry.originalSource);
    return `${source}:${String(entry.originalLine + 1)}:${String(entry.originalColumn + 1)}`;
  });
}

function readSourceMap(file: string): SourceMap | undefined {
  const mapFile = `${file}.map`;
  if (!existsSync(mapFile)) return undefined;
  try {
    return new SourceMap(
      JSON.parse(readFileSync(mapFile, 'utf8')) as ConstructorParameters<typeof SourceMap>[0],
    );
  } catch {
    return undefined;
  }
}
