/** Pieces shorter than this are not secrets worth the name, and would blank out ordinary words. */
export const MIN_PIECE = 6;

/** Length of the samples a secret is indexed by, one every GRAM characters. */
const GRAM = 8;

/**
 * Any run this long of a secret contains one of its samples whole, wherever the run starts: so
 * every run of at least PIECE characters is found, in any text.
 */
const PIECE = 2 * GRAM - 1;

/** A sample seen in more secrets than this (a run of spaces, `AAAAAAAA`) says nothing: not indexed further. */
const MAX_SAMPLE_HITS = 64;

/** A range of a text to mask: [start, end). */
export type TextRange = readonly [number, number];

/**
 * Finds where known secrets, or pieces of them, stand in a text (docs/hooks.md "What of a hook's
 * output leaves the operator"):
 * - a whole secret of at least MIN_PIECE characters, anywhere;
 * - a run of at least PIECE characters of a secret, anywhere: what survives any cut of the text;
 * - at a line's end a beginning of a secret, at a line's start an end of one, of at least MIN_PIECE
 *   characters: what a cut shorter than PIECE leaves (kaddon cuts text at line ends, `…` after).
 */
export class SecretPieces {
  readonly #ids = new Map<string, number>();
  readonly #forms = new Map<number, string>();
  /** Short secrets by their first MIN_PIECE characters: found whole only. */
  readonly #short = new Map<string, Set<string>>();
  /** Beginnings and ends of every secret, MIN_PIECE to PIECE - 1 long, each counted: the pieces at line edges. */
  readonly #beginnings = new Map<string, number>();
  readonly #ends = new Map<string, number>();
  /** Samples of long secrets: [id, offset, id, offset, …]. */
  readonly #samples = new Map<string, number[]>();
  #nextId = 0;

  add(secret: string): void {
    if (secret.length < MIN_PIECE || this.#ids.has(secret)) return;
    const id = this.#nextId++;
    this.#ids.set(secret, id);
    this.#forms.set(id, secret);
    for (const [index, piece] of edgePieces(secret))
      count(index === 0 ? this.#beginnings : this.#ends, piece, 1);
    if (secret.length < PIECE) addTo(this.#short, secret.slice(0, MIN_PIECE), secret);
    else
      for (let offset = 0; offset + GRAM <= secret.length; offset += GRAM) {
        const hits = this.#samples.get(secret.slice(offset, offset + GRAM)) ?? [];
        if (hits.length >= 2 * MAX_SAMPLE_HITS) continue;
        hits.push(id, offset);
        this.#samples.set(secret.slice(offset, offset + GRAM), hits);
      }
  }

  delete(secret: string): void {
    const id = this.#ids.get(secret);
    if (id === undefined) return;
    this.#ids.delete(secret);
    this.#forms.delete(id);
    for (const [index, piece] of edgePieces(secret))
      count(index === 0 ? this.#beginnings : this.#ends, piece, -1);
    deleteFrom(this.#short, secret.slice(0, MIN_PIECE), secret);
    for (let offset = 0; offset + GRAM <= secret.length && secret.length >= PIECE; offset += GRAM) {
      const key = secret.slice(offset, offset + GRAM);
      const kept = (this.#samples.get(key) ?? []).filter((_, i, all) => all[i - (i % 2)] !== id);
      if (kept.length === 0) this.#samples.delete(key);
      else this.#samples.set(key, kept);
    }
  }

  /** The ranges of `text` that hold a secret or a piece of one, merged and in order. */
  find(text: string): TextRange[] {
    if (this.#ids.size === 0) return [];
    const found: TextRange[] = [];
    this.#findWhole(text, found);
    this.#findRuns(text, found);
    this.#findEdges(text, found);
    return merged(found.map((range) => trimmed(text, range)));
  }

  #findWhole(text: string, found: TextRange[]): void {
    if (this.#short.size === 0) return;
    for (let i = 0; i + MIN_PIECE <= text.length; i++)
      for (const secret of this.#short.get(text.slice(i, i + MIN_PIECE)) ?? [])
        if (text.startsWith(secret, i)) found.push([i, i + secret.length]);
  }

  /** Runs of PIECE or more characters in common with a long secret, found from its samples. */
  #findRuns(text: string, found: TextRange[]): void {
    if (this.#samples.size === 0) return;
    // Where a run along one alignment of text and secret ends: each run is measured once.
    const measured = new Map<string, number>();
    for (let i = 0; i + GRAM <= text.length; i++) {
      const hits = this.#samples.get(text.slice(i, i + GRAM));
      if (hits === undefined) continue;
      for (let h = 0; h < hits.length; h += 2) {
        const id = hits[h] ?? 0;
        const offset = hits[h + 1] ?? 0;
        const secret = this.#forms.get(id);
        const alignment = `${String(id)}:${String(i - offset)}`;
        if (secret === undefined || (measured.get(alignment) ?? 0) > i) continue;
        const range = commonRun(text, i, secret, offset);
        measured.set(alignment, range[1]);
        if (range[1] - range[0] >= PIECE) found.push(range);
      }
    }
  }

  #findEdges(text: string, found: TextRange[]): void {
    let start = 0;
    while (start <= text.length) {
      const newline = text.indexOf('\n', start);
      const end = newline === -1 ? text.length : newline;
      this.#findAtEdges(text, start, end, found);
      start = end + 1;
    }
  }

  /** A cut line may end with a secret's beginning, and a line kept from its end start with a secret's end. */
  #findAtEdges(text: string, lineStart: number, lineEnd: number, found: TextRange[]): void {
    let end = lineEnd;
    if (text[end - 1] === '…') end -= 1;
    if (text[end - 1] === '\r') end -= 1;
    for (let from = Math.max(lineStart, end - PIECE + 1); from + MIN_PIECE <= end; from++) {
      if (this.#beginnings.has(text.slice(from, end))) {
        found.push([from, end]);
        break;
      }
    }
    for (let to = Math.min(end, lineStart + PIECE - 1); to - MIN_PIECE >= lineStart; to--) {
      if (this.#ends.has(text.slice(lineStart, to))) {
        found.push([lineStart, to]);
        break;
      }
    }
  }
}

/** The longest stretch around text[at, at+GRAM) that equals the secret around `offset`. */
function commonRun(text: string, at: number, secret: string, offset: number): TextRange {
  let back = 0;
  while (at - back > 0 && offset - back > 0 && text[at - back - 1] === secret[offset - back - 1]) back++;
  let ahead = GRAM;
  while (
    at + ahead < text.length &&
    offset + ahead < secret.length &&
    text[at + ahead] === secret[offset + ahead]
  )
    ahead++;
  return [at - back, at + ahead];
}

/** A range without the white space at its ends: masking it hides nothing, and keeps lines apart. */
function trimmed(text: string, [start, end]: TextRange): TextRange {
  let from = start;
  let to = end;
  while (from < to && /\s/u.test(text[from] ?? '')) from++;
  while (to > from && /\s/u.test(text[to - 1] ?? '')) to--;
  return [from, to];
}

function merged(ranges: TextRange[]): TextRange[] {
  ranges.sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [start, end] of ranges) {
    if (start === end) continue;
    const last = out.at(-1);
    if (last !== undefined && start <= last[1]) last[1] = Math.max(last[1], end);
    else out.push([start, end]);
  }
  return out;
}

/** [0, beginning] and [1, end] pieces of a secret, MIN_PIECE to PIECE - 1 characters long. */
function* edgePieces(secret: string): Generator<readonly [0 | 1, string]> {
  for (let length = MIN_PIECE; length < PIECE && length <= secret.length; length++) {
    yield [0, secret.slice(0, length)];
    yield [1, secret.slice(-length)];
  }
}

function count(index: Map<string, number>, piece: string, by: 1 | -1): void {
  const next = (index.get(piece) ?? 0) + by;
  if (next > 0) index.set(piece, next);
  else index.delete(piece);
}

function addTo(index: Map<string, Set<string>>, key: string, secret: string): void {
  const set = index.get(key) ?? new Set<string>();
  set.add(secret);
  index.set(key, set);
}

function deleteFrom(index: Map<string, Set<string>>, key: string, secret: string): void {
  const set = index.get(key);
  if (set === undefined) return;
  set.delete(secret);
  if (set.size === 0) index.delete(key);
}
