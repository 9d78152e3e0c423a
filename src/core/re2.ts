import type * as Re2js from 're2js';
import { loadOnUse } from './load-on-use.ts';

/**
 * re2js, a port of RE2, loaded on first use as CommonJS, one copy for every caller (an `import`
 * beside a `require` kept two copies of its code and Unicode tables in the operator).
 */
const re2js = loadOnUse('re2js') as () => typeof Re2js;

/**
 * A Go (RE2) pattern compiled with re2js: matching takes linear time, whatever the pattern.
 * Throws on what RE2 refuses (lookarounds, backreferences, a syntax error).
 */
export function compileRe2(source: string): { test: (text: string) => boolean } {
  const compiled = re2js().RE2JS.compile(source);
  return { test: (text) => compiled.matcher(text).find() };
}
