import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  statSync,
  type Stats,
} from 'node:fs';
import { KaddonError } from '../core/errors.ts';

/** A file of a modules tree or a kustomization that kaddon refuses to read, with what to fix. */
export class InputFileError extends KaddonError {
  readonly code = 'input-file-invalid';
  readonly file: string;
  constructor(file: string, problem: string, hint: string, options?: { cause?: unknown }) {
    super(`file '${file}': ${problem}.`, hint, options);
    this.file = file;
  }
}

/**
 * The bytes of `file`, which must be a regular file of at most `maxBytes` (docs/modules.md "Limits
 * on input"). It is opened without blocking and checked on the open descriptor, so a named pipe
 * cannot stall the read and nothing can swap the file between the check and the read. `shown` is
 * the path messages name. A directory is left to the caller (undefined): each words it its own way.
 */
export function readRegularFile(file: string, shown: string, maxBytes: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error: unknown) {
    throw openFailure(file, shown, error);
  }
  try {
    const stats = fstatSync(fd);
    if (stats.isDirectory()) return undefined;
    if (!stats.isFile()) throw notRegular(shown, kindOf(stats));
    if (stats.size > maxBytes)
      throw new InputFileError(
        shown,
        `is ${String(stats.size)} bytes, more than kaddon reads (${String(maxBytes)})`,
        'Split the file or make it smaller.',
      );
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** What a file that is not regular is, as messages say it. */
function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return 'a named pipe (FIFO)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

function notRegular(shown: string, kind: string): InputFileError {
  return new InputFileError(
    shown,
    `is ${kind}, not a regular file`,
    'kaddon reads only regular files from a tree: replace it with a file.',
  );
}

/** Why `open` failed, in words: a socket cannot be opened, a symlink loop cannot be followed. */
function openFailure(file: string, shown: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENXIO' || code === 'EOPNOTSUPP') {
    const stats = statOrUndefined(file);
    return notRegular(shown, stats ? kindOf(stats) : 'a socket');
  }
  if (code === 'ELOOP') return symlinkLoop(shown, error);
  return error;
}

export function symlinkLoop(shown: string, cause?: unknown): InputFileError {
  return new InputFileError(
    shown,
    'is a symlink loop: following its links leads back to one of them',
    'Point the symlink at a file, or remove it.',
    { cause },
  );
}

/** True when `file` is a symlink that leads, directly or not, back to itself. */
export function isSymlinkLoop(file: string): boolean {
  try {
    statSync(file);
    return false;
  } catch (error: unknown) {
    return (error as NodeJS.ErrnoException).code === 'ELOOP' && lstatSync(file).isSymbolicLink();
  }
}

function statOrUndefined(file: string): Stats | undefined {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Byte order marks of the encodings YAML allows besides UTF-8, which kaddon does not read. */
const OTHER_ENCODINGS: readonly (readonly [bytes: readonly number[], name: string])[] = [
  [[0x00, 0x00, 0xfe, 0xff], 'UTF-32 (big-endian)'],
  [[0xff, 0xfe, 0x00, 0x00], 'UTF-32 (little-endian)'],
  [[0xfe, 0xff], 'UTF-16 (big-endian)'],
  [[0xff, 0xfe], 'UTF-16 (little-endian)'],
];

/**
 * The text of a YAML or JSON file, which must be UTF-8 (as kustomize and the API server read it);
 * another encoding is named in the error, from its byte order mark, or the first invalid byte's line.
 */
export function decodeUtf8(bytes: Uint8Array, shown: string): string {
  for (const [mark, name] of OTHER_ENCODINGS) {
    if (mark.every((byte, index) => bytes[index] === byte))
      throw new InputFileError(
        shown,
        `is encoded in ${name}, not UTF-8 (it starts with a ${name.split(' ')[0] ?? ''} byte order mark)`,
        'Save the file as UTF-8: kaddon, kustomize and the API server read YAML as UTF-8.',
      );
  }
  try {
    return UTF8.decode(bytes);
  } catch (error: unknown) {
    const text = Buffer.from(bytes).toString('utf8');
    const at = text.indexOf('\uFFFD');
    const line = at < 0 ? 1 : text.slice(0, at).split('\n').length;
    throw new InputFileError(
      `${shown}:${String(line)}`,
      'is not valid UTF-8 (a byte sequence there is not UTF-8; Latin-1 or Windows-1252 text looks like this)',
      'Save the file as UTF-8: kaddon, kustomize and the API server read YAML as UTF-8.',
      { cause: error },
    );
  }
}
