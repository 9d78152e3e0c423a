/** A `kubectl` command as the docs show it. */
export interface DocCommand {
  /** The markdown file, relative to the repository. */
  readonly file: string;
  /** 1-based line of the command (its first line when continued with `\`). */
  readonly line: number;
  /** The command as written: prompt, trailing comment and line continuations removed. */
  readonly command: string;
  /** Inline code in prose, rather than a line of a code block. */
  readonly inline: boolean;
}

const FENCE = /^\s*(```|~~~)/;
const INLINE_CODE = /`([^`\n]+)`/g;

/**
 * Every `kubectl` command of a markdown text: each line of a fenced code block with a stage that
 * starts with `kubectl ` (so `kaddon rbac … | kubectl apply -f -` counts), and each inline code
 * span that starts with `kubectl`.
 */
export function findKubectlCommands(file: string, markdown: string): DocCommand[] {
  const commands: DocCommand[] = [];
  const lines = markdown.split('\n');
  let fenced = false;
  for (let index = 0; index < lines.length; index++) {
    const text = lines[index] ?? '';
    if (FENCE.test(text)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) {
      const [joined, last] = joinContinuations(lines, index);
      const command = stripComment(joined.replace(/^\s*\$\s+/, ''));
      if (isKubectlLine(command)) commands.push({ file, line: index + 1, command, inline: false });
      index = last;
      continue;
    }
    for (const match of text.matchAll(INLINE_CODE)) {
      const code = (match[1] ?? '').trim();
      if (code === 'kubectl' || code.startsWith('kubectl ')) {
        commands.push({ file, line: index + 1, command: code, inline: true });
      }
    }
  }
  return commands;
}

/** The line at `index` with the lines it continues onto (`\` at the end), and the last one's index. */
function joinContinuations(lines: readonly string[], index: number): [string, number] {
  let joined = lines[index] ?? '';
  let last = index;
  while (joined.endsWith('\\') && last + 1 < lines.length) {
    last++;
    joined = `${joined.slice(0, -1).trimEnd()} ${(lines[last] ?? '').trim()}`;
  }
  return [joined, last];
}

/** Drops a trailing `# comment` (a `#` after blanks, outside quotes) and surrounding blanks. */
function stripComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") {
      quote = char;
    } else if (char === '#' && (i === 0 || /\s/.test(line[i - 1] ?? ''))) {
      return line.slice(0, i).trim();
    }
  }
  return line.trim();
}

function isKubectlLine(command: string): boolean {
  return command.split('|').some((stage) => /^kubectl(\s|$)/.test(stage.trim()));
}
