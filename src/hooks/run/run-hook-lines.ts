/** One line of a hook's output, cut to the line-length cap. */
export interface OutputLine {
  /** The line without its line ending, at most the cap in UTF-8 bytes. */
  readonly text: string;
  /** How many bytes of the line were dropped (0 when it fit). */
  readonly droppedBytes: number;
}

const NEWLINE = 0x0a;

/**
 * Splits a byte stream into lines while holding at most `maxLineBytes` of any line in memory:
 * the rest of a longer line is counted and dropped, so a 10 MB line without a newline costs no
 * more than a short one (shell-operator's executor hangs on such lines, issue #297).
 */
export class OutputLineSplitter {
  private readonly parts: Buffer[] = [];
  private keptBytes = 0;
  private droppedBytes = 0;

  constructor(
    private readonly maxLineBytes: number,
    private readonly onLine: (line: OutputLine) => void,
  ) {}

  push(chunk: Uint8Array): void {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      this.keep(chunk.subarray(start, end));
      this.flush();
      start = end + 1;
    }
    this.keep(chunk.subarray(start));
  }

  /** Emits a last line that had no newline. */
  end(): void {
    if (this.keptBytes > 0 || this.droppedBytes > 0) this.flush();
  }

  private keep(bytes: Uint8Array): void {
    const room = Math.max(0, this.maxLineBytes - this.keptBytes);
    const taken = Math.min(room, bytes.length);
    // A copy, so that a large chunk is not kept alive by a small slice of it.
    if (taken > 0) this.parts.push(Buffer.from(bytes.subarray(0, taken)));
    this.keptBytes += taken;
    this.droppedBytes += bytes.length - taken;
  }

  private flush(): void {
    let bytes = Buffer.concat(this.parts, this.keptBytes);
    let dropped = this.droppedBytes;
    if (dropped > 0) {
      const whole = utf8Boundary(bytes);
      dropped += bytes.length - whole;
      bytes = bytes.subarray(0, whole);
    }
    let text = bytes.toString('utf8');
    if (text.endsWith('\r')) text = text.slice(0, -1);
    this.parts.length = 0;
    this.keptBytes = 0;
    this.droppedBytes = 0;
    this.onLine({ text, droppedBytes: dropped });
  }
}

/** The length of `bytes` without a trailing, incomplete UTF-8 sequence. */
function utf8Boundary(bytes: Buffer): number {
  let index = bytes.length;
  while (index > 0 && ((bytes[index - 1] ?? 0) & 0xc0) === 0x80) index -= 1;
  if (index === 0) return bytes.length;
  const lead = bytes[index - 1] ?? 0;
  const expected = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return bytes.length - (index - 1) >= expected ? bytes.length : index - 1;
}

/** Keeps the last lines of an output, up to `maxChars` characters in all, for error messages. */
export class OutputTail {
  private lines: string[] = [];
  private size = 0;

  constructor(private readonly maxChars: number) {}

  add(line: string): void {
    const cut = line.length > this.maxChars ? line.slice(0, this.maxChars) : line;
    this.lines.push(cut);
    this.size += cut.length + 1;
    while (this.size > this.maxChars && this.lines.length > 1) {
      this.size -= (this.lines.shift()?.length ?? 0) + 1;
    }
  }

  text(): string {
    return this.lines.join('\n');
  }
}
