import { KustomizeError } from '../../core/errors.ts';
import { compareKeys } from '../../core/object-key.ts';
import type { GeneratorArgs, KustomizationNode } from '../../core/kustomization.ts';

/** The kustomization field a generator entry is written under; messages name it. */
export type GeneratorField = 'configMapGenerator' | 'secretGenerator';

/** The generator entry being built, for messages. */
export interface GeneratorContext {
  readonly field: GeneratorField;
  readonly name: string;
  readonly node: KustomizationNode;
}

/**
 * One key of a generated ConfigMap or Secret and its value: the text of an env line (decoded from
 * UTF-8), the bytes of a literal or a file.
 */
export interface DataItem {
  readonly key: string;
  readonly value: string | Uint8Array;
}

/**
 * The key/value pairs of a generator entry in kustomize's order: env files (`envs`, then the
 * legacy `env`), literals, files (kustomize's api/kv). Keys are not validated; a key that appears
 * twice is an error.
 */
export function collectGeneratorData(ctx: GeneratorContext, args: GeneratorArgs): DataItem[] {
  const envFiles = [...(args.envs ?? []), ...(args.env ? [args.env] : [])];
  const items = [
    ...envFiles.flatMap((path) => readEnvFile(ctx, path)),
    ...(args.literals ?? []).map((source) => parseLiteral(ctx, source)),
    ...(args.files ?? []).map((source) => readFileSource(ctx, source)),
  ];
  rejectRepeatedKeys(ctx, items);
  return items;
}

/** An error about a generator entry; `file` is the source file at fault when it is not the kustomization. */
function generatorError(
  ctx: GeneratorContext,
  problem: string,
  hint: string,
  file = ctx.node.file,
): KustomizeError {
  const entry = `${ctx.field} '${ctx.name}'${file === ctx.node.file ? '' : ` in ${ctx.node.file}`}`;
  return new KustomizeError('generator-invalid', file, `${entry}: ${problem}`, hint);
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The text of `value`, or undefined when it is bytes that are not valid UTF-8. */
export function decodeUtf8(value: string | Uint8Array): string | undefined {
  if (typeof value === 'string') return value;
  try {
    return utf8.decode(value);
  } catch {
    return undefined;
  }
}

/** Base64, broken into lines of 70 characters each ending in `\n` once it reaches 70 (kustomize's api/kv). */
export function encodeBase64Lines(value: string | Uint8Array): string {
  const encoded = (typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value)).toString(
    'base64',
  );
  if (encoded.length < 70) return encoded;
  return (encoded.match(/.{1,70}/g) ?? []).map((line) => `${line}\n`).join('');
}

/** Items sorted by key in byte order, as kustomize writes them. */
export function sortedByKey(items: readonly DataItem[]): DataItem[] {
  return [...items].sort((a, b) => compareKeys(a.key, b.key));
}

/** `key=value`: split at the first `=`; a value in matching single or double quotes loses them. */
function parseLiteral(ctx: GeneratorContext, source: string): DataItem {
  const eq = source.indexOf('=');
  if (eq <= 0) {
    throw generatorError(
      ctx,
      `invalid literal source ${source}, expected key=value`,
      'Write each literal as key=value with a non-empty key.',
    );
  }
  const value = source.slice(eq + 1);
  const quoted = value.length >= 2 && value[0] === value.at(-1) && (value[0] === '"' || value[0] === "'");
  // As bytes: a lone surrogate from a `\uD800` escape becomes U+FFFD, as it does in Go's UTF-8.
  return { key: source.slice(0, eq), value: Buffer.from(quoted ? value.slice(1, -1) : value) };
}

/** `path` (key = basename) or `key=path`. */
function readFileSource(ctx: GeneratorContext, source: string): DataItem {
  const parts = source.split('=');
  const [key = '', path = ''] = parts;
  if (parts.length === 1) return { key: baseName(source), value: readSource(ctx, source) };
  const hint = 'Write the file source as path or key=path, with no other `=`.';
  if (parts.length > 2) throw generatorError(ctx, `file source '${source}' has '=' in its key or path`, hint);
  if (key === '') throw generatorError(ctx, `file source '${source}' has no key before '='`, hint);
  if (path === '') throw generatorError(ctx, `file source '${source}' has no path after '='`, hint);
  return { key, value: readSource(ctx, path) };
}

/** Go's `path.Base`: the last element, trailing slashes ignored. */
function baseName(path: string): string {
  if (path === '') return '.';
  const trimmed = path.replace(/\/+$/, '');
  if (trimmed === '') return '/';
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

function readSource(ctx: GeneratorContext, path: string): Uint8Array {
  const bytes = ctx.node.files.get(path);
  if (bytes === undefined) {
    throw generatorError(
      ctx,
      `file '${ctx.node.filePaths.get(path) ?? path}' could not be read`,
      'Check that the file exists inside the kustomization directory.',
    );
  }
  return bytes;
}

/** Go's `unicode.IsSpace` set, which differs from JavaScript's `\s` (U+0085 in, U+FEFF out). */
const LEADING_SPACE = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

/**
 * Env file lines: leading space trimmed; blank lines and `#` comments skipped; split at the first
 * `=` with nothing else trimmed; no `=` gives an empty value; an empty key drops the line; a UTF-8
 * BOM is stripped from the first line only; CRLF endings are accepted. The file is decoded once;
 * only when that fails is it read line by line, to name the line.
 */
function readEnvFile(ctx: GeneratorContext, path: string): DataItem[] {
  const bytes = readSource(ctx, path);
  const text = decodeUtf8(bytes);
  if (text === undefined) throw invalidEnvLine(ctx, path, bytes);
  return splitLines(text).flatMap((line, index) => {
    const trimmed = (index === 0 ? line.replace(/^\uFEFF/, '') : line).replace(LEADING_SPACE, '');
    if (trimmed === '' || trimmed.startsWith('#')) return [];
    const eq = trimmed.indexOf('=');
    const key = eq < 0 ? trimmed : trimmed.slice(0, eq);
    return key === '' ? [] : [{ key, value: eq < 0 ? '' : trimmed.slice(eq + 1) }];
  });
}

/** Lines split at `\n`, one trailing `\r` dropped from each; no empty line after a final `\n`. */
function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}

/** The error for an env file that is not UTF-8, naming its first line that is not. */
function invalidEnvLine(ctx: GeneratorContext, path: string, bytes: Uint8Array): KustomizeError {
  let line = 1;
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i < bytes.length && bytes[i] !== 0x0a) continue;
    if (decodeUtf8(bytes.subarray(start, i)) === undefined) break;
    line++;
    start = i + 1;
  }
  return generatorError(
    ctx,
    `line ${String(line)} is not valid UTF-8`,
    'Save the env file as UTF-8 text, or list binary content under files.',
    ctx.node.filePaths.get(path) ?? path,
  );
}

function rejectRepeatedKeys(ctx: GeneratorContext, items: readonly DataItem[]): void {
  const seen = new Set<string>();
  for (const { key } of items) {
    if (seen.has(key)) {
      throw generatorError(
        ctx,
        `its data illegally repeats the key \`${key}\``,
        `Give \`${key}\` a single source: remove one of the env lines, literals or files that produce it, or rename it with key=path.`,
      );
    }
    seen.add(key);
  }
}
