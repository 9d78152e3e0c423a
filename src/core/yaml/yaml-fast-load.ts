import jsyaml from 'js-yaml';
import { markImplicitNull } from './implicit-null.ts';
import type { JsonValue } from '../json.ts';
import { GO_YAML_RULES } from './go-yaml-rules.ts';
import { resolvePlainScalar, resolveTaggedScalar } from './plain-scalar.ts';
import type { YamlDocument } from './yaml-document.ts';

/** What `.inf` and `.nan` construct: JSON holds neither, so the document goes to the `yaml` library, which says so. */
const NOT_JSON = Object.freeze({ notJson: true });

/**
 * What a null written as text (`null`, `~`, `!!null null`) constructs, so that a null js-yaml gives
 * otherwise is known to be a field written with no value (implicit-null.ts); settlePlainJson makes
 * it null again. A symbol, not an object: js-yaml must still refuse to merge it (`<<: [*a, ~]`).
 */
const EXPLICIT_NULL = Symbol('explicit null');

/** The key js-yaml makes of EXPLICIT_NULL (`null: a`), where `null` was the key before. */
const EXPLICIT_NULL_KEY = String(EXPLICIT_NULL);

/**
 * Plain scalars typed as go-yaml v3 types them (plain-scalar.ts, by GO_YAML_RULES), as the `yaml`
 * library is told to type them too (yaml.ts), so that both libraries read the same text as the same
 * values; so are scalars tagged `!!int`, `!!float`, `!!bool`, `!!null`, `!!timestamp` and `!!binary`
 * (a text not of its type is refused).
 */
const GO_YAML_SCHEMA = jsyaml.FAILSAFE_SCHEMA.extend({
  explicit: GO_YAML_RULES.v3.explicitTypes.map(
    (type) =>
      new jsyaml.Type(`${GO_YAML_RULES.tagPrefix}${type}`, {
        kind: 'scalar',
        resolve: (text: string | null) => resolveTaggedScalar(type, text ?? '') !== undefined,
        construct: (text: string | null) =>
          type === 'null' && text ? EXPLICIT_NULL : resolveTaggedScalar(type, text ?? ''),
      }),
  ),
  implicit: [
    // `<<` as a plain key merges maps into its mapping as go-yaml v3 (and kustomize) merge them:
    // keys of the mapping win, then the earlier maps of a list. js-yaml merges so; yaml.ts has the
    // library do the same. A mapping with two merge keys is left to the library (NodeScan).
    new jsyaml.Type(`${GO_YAML_RULES.tagPrefix}merge`, {
      kind: 'scalar',
      resolve: (text: string | null) => text === GO_YAML_RULES.mergeKey,
    }),
    new jsyaml.Type(`${GO_YAML_RULES.tagPrefix}plain`, {
      kind: 'scalar',
      resolve: (text: string | null) => resolvePlainScalar(text ?? '') !== undefined,
      construct: (text: string | null) => {
        const resolved = resolvePlainScalar(text ?? '');
        if (resolved === undefined || !('value' in resolved)) return NOT_JSON;
        return resolved.value === null && text ? EXPLICIT_NULL : resolved.value;
      },
    }),
  ],
});

/**
 * Text the fast path leaves to the `yaml` library, each found by differential testing
 * (yaml-fast-load.test.ts), where js-yaml reads something the library refuses or reads otherwise.
 * Anywhere in the text: directives (`%YAML 1.1` changes the schema) and a document marker with
 * anything but a comment after it or run into text (`---x`, `---#`: a comment needs a space
 * before it). Tabs too, but where NodeScan finds them inside a quoted or block scalar (a script in
 * a ConfigMap) or in a comment.
 */
const LIBRARY_ONLY = /^%|^(?:---|\.\.\.)(?!(?: +#.*| *)$)/m;

/**
 * The same outside scalars: tags; keys that are empty, explicit (`? `), collections (`[a]: b`) or
 * aliases (`*a : b`, perhaps of a collection), which the libraries turn into different strings or
 * refuse; a block scalar's indentation indicator; an
 * empty sequence entry (`- #c`, `- - `); `#` right after a bracket, comma, colon or quote. Inside a
 * scalar's content (a CRD's description, a regular expression) these are text, read alike, so
 * each match is looked up among the scalars js-yaml read (NodeScan) before the text is declined.
 */
const LIBRARY_ONLY_OUTSIDE_SCALARS = new RegExp(
  [
    '(?:^|[\\s[{,])[!?]',
    '(?:^|[\\s[{,])\\*[^\\s[\\]{},]+[ \\t]*:(?:[ \\t]|$)',
    '^[ -]*:(?:[ ]|$)',
    '[\\]}] *:',
    '[|>][+-]?[0-9]',
    '(?:^|\\s)-(?: *#| *$| +-(?: |$))',
    `[\\]}"'[{,:]#`,
  ].join('|'),
  'gm',
);

/** Where each match of LIBRARY_ONLY_OUTSIDE_SCALARS starts and ends, overlapping ones too. */
function outsideScalarSuspects(text: string): number[] {
  const found: number[] = [];
  LIBRARY_ONLY_OUTSIDE_SCALARS.lastIndex = 0;
  for (let match = LIBRARY_ONLY_OUTSIDE_SCALARS.exec(text); match !== null;) {
    found.push(match.index, match.index + match[0].length);
    LIBRARY_ONLY_OUTSIDE_SCALARS.lastIndex = match.index + 1;
    match = LIBRARY_ONLY_OUTSIDE_SCALARS.exec(text);
  }
  return found;
}

/** Where each tab stands. */
function tabPositions(text: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf('\t'); at !== -1; at = text.indexOf('\t', at + 1)) found.push(at);
  return found;
}

/** A string scalar holding a `$`, as read, for `$(var)` expansion (yaml.ts), which depends on its style. */
export interface DollarScalar {
  readonly value: string;
  /** Plain scalars that are one reference take the referenced value; quoted and block ones stay strings. */
  readonly plain: boolean;
  /** Its first line in the text, counted from 1. */
  readonly line: number;
  /** Where its content starts: the same scalar may be reported twice. */
  readonly start: number;
}

/** js-yaml refused the text for a key defined twice in a mapping, where the `yaml` library refuses it too. */
export interface DuplicateKey {
  /** The line of the second definition, counted from 1. */
  readonly duplicateKeyLine: number;
}

/**
 * Parses a YAML stream of plain data with js-yaml, several times faster than the `yaml` library's
 * document model (docs/performance.md), giving the same values and lines. Undefined when the text
 * holds what only the library reads alike (LIBRARY_ONLY, LIBRARY_ONLY_OUTSIDE_SCALARS, NodeScan),
 * when js-yaml refuses it, or when the result holds what only the library resolves: the caller
 * then parses with the library, which also words every error but one: a duplicate key that both
 * libraries see alike comes back as DuplicateKey. Nesting past `maxDepth` is left to the library
 * too. With `dollars`, every string scalar holding a `$` is pushed to it in text order; a tagged or
 * anchored one, or an alias of one, declines the text.
 */
export function loadPlainYaml(
  text: string,
  lastKeyWins: boolean,
  limits: YamlLimits,
  dollars?: DollarScalar[],
): YamlDocument[] | DuplicateKey | undefined {
  if (LIBRARY_ONLY.test(text) || mayEndInBlockScalar(text)) return undefined;
  const suspects = outsideScalarSuspects(text);
  const tabs = tabPositions(text);
  const maxDepth = limits.depth;
  const scan = new NodeScan(text, limits.aliases, suspects.length > 0 || tabs.length > 0, dollars);
  // maxDepth is js-yaml 4.3's bound on its recursion; @types/js-yaml predates it.
  const options: jsyaml.LoadOptions & { maxDepth: number } = {
    schema: GO_YAML_SCHEMA,
    json: lastKeyWins,
    maxDepth: maxDepth + 1,
    listener: (event, state) => {
      if (event === 'open') scan.open(state.position, state.line);
      else scan.close(state.position, state.kind, state.result);
    },
  };
  let values: unknown[];
  try {
    values = jsyaml.loadAll(text, undefined, options);
  } catch (error: unknown) {
    if (lastKeyWins || suspects.length > 0 || tabs.length > 0 || !scan.agrees()) return undefined;
    return duplicatePlainKey(error, text, scan);
  }
  if (
    scan.lines.length !== values.length ||
    !scan.agrees() ||
    scan.declinesDollars ||
    !scan.holdsAll(suspects) ||
    !scan.holdsTabs(tabs)
  )
    return undefined;
  const out: YamlDocument[] = [];
  // An alias reaches a map a second time, its explicit nulls already made null: it is settled once.
  const budget = {
    nodes: MAX_EXPANDED_NODES,
    settled: scan.sawPropertiesOrAliases ? new WeakSet<object>() : undefined,
  };
  for (const [index, value] of values.entries()) {
    if (value === null || value === undefined || value === EXPLICIT_NULL) continue;
    if (!settlePlainJson(value, 1, maxDepth, budget)) return undefined;
    out.push({ value, line: scan.lines[index] ?? 1 });
  }
  return out;
}

/**
 * The error js-yaml threw as a DuplicateKey when the `yaml` library would refuse the text for the same
 * key: the key defined again is a plain scalar that is a string, and no alias, tag or anchor came
 * before it. js-yaml compares keys by their string forms, the library by their values, so `1` and
 * `"1"` are one key to js-yaml only; a key that is a string plain is a string in both places, and
 * so was the key it repeats.
 */
function duplicatePlainKey(error: unknown, text: string, scan: NodeScan): DuplicateKey | undefined {
  if (!(error instanceof jsyaml.YAMLException) || error.reason !== 'duplicated mapping key') return undefined;
  if (scan.sawPropertiesOrAliases) return undefined;
  const { position, line } = error.mark;
  const end = text.indexOf('\n', position);
  const key = /^([^\s"'!&*?{}[\],#|>%@`:-][^\n]*?) *:(?: |$)/.exec(
    text.slice(position, end === -1 ? undefined : end),
  )?.[1];
  if (key === undefined || /[{}[\],#]/.test(key) || resolvePlainScalar(key) !== undefined) return undefined;
  return { duplicateKeyLine: line + 1 };
}

/**
 * A text whose last line, with no line break after it, may belong to a block scalar: go-yaml v3
 * then gives the scalar no final line break (the YAML spec's clipping keeps a break only "if
 * any"), where both JavaScript libraries add one. Such texts go to the `yaml` library, which yaml.ts then corrects.
 */
export function mayEndInBlockScalar(text: string): boolean {
  return text !== '' && !text.endsWith('\n') && /[|>]/.test(text);
}

/** The `yaml` library's bounds as kaddon sets them (yaml.ts). */
export interface YamlLimits {
  /** How deep documents may nest. */
  readonly depth: number;
  /** The library's maxAliasCount. */
  readonly aliases: number;
}

/** How many nodes a text's documents may hold once aliases are expanded before the library takes it. */
const MAX_EXPANDED_NODES = 1_000_000;

/**
 * Follows js-yaml's nodes as they open and close, for the lines documents start on and for what
 * the libraries read differently: a quoted scalar spanning lines (they differ on how far its
 * continuation lines must be indented), an anchored root, an anchored node holding an alias, or more aliases than
 * the library's maxAliasCount (which it counts from those two cases; with neither it cannot be
 * reached).
 */
class NodeScan {
  readonly lines: number[] = [];
  private readonly stack: { start: number; line: number; holdsAlias: boolean; merges?: Set<number> }[] = [];
  private aliases = 0;
  private differs = false;
  /** Where each scalar's content starts and ends, in the order read, when `recordScalars`. */
  private readonly scalars: number[] = [];
  /** The same for quoted and block scalars only, whose tabs both libraries keep as text. */
  private readonly tabSafeScalars: number[] = [];
  /** A node with a tag or an anchor: js-yaml may read past it and back, so scalars are not trusted. */
  private hasProperties = false;
  /** Where each tag that js-yaml and the library read alike stands (scalarTagLength). */
  private readonly scalarTags = new Set<number>();
  /** A tag, an anchor or an alias was met. */
  sawPropertiesOrAliases = false;
  /** A string holding a `$` had a tag or an anchor or was an alias: expansion goes to the library. */
  declinesDollars = false;

  constructor(
    private readonly text: string,
    private readonly maxAliases: number,
    private readonly recordScalars: boolean,
    private readonly dollars?: DollarScalar[],
  ) {}

  open(position: number, line: number): void {
    if (this.stack.length === 0) this.lines.push(line + 1);
    this.stack.push({ start: position, line, holdsAlias: false });
  }

  close(position: number, kind: string | null, result: unknown): void {
    const node = this.stack.pop();
    if (node === undefined) return;
    const start = contentStart(this.text, node.start);
    const first = this.text[start];
    const parent = this.stack.at(-1);
    if (first === '*' || first === '&' || first === '!') this.sawPropertiesOrAliases = true;
    if (this.dollars && kind === 'scalar' && typeof result === 'string' && result.includes('$'))
      this.recordDollar(node, start, first, result);
    if (first === '*') this.aliases++;
    // A second merge key in one mapping: the library refuses it as a key defined twice, js-yaml merges both.
    if (parent && kind === 'scalar' && result === GO_YAML_RULES.mergeKey && first === '<') {
      parent.merges ??= new Set();
      parent.merges.add(start);
      if (parent.merges.size > 1) this.differs = true;
    }
    // The libraries give a document whose root is anchored different lines.
    if (first === '&' && (node.holdsAlias || parent === undefined)) this.differs = true;
    if (parent && (first === '*' || node.holdsAlias)) parent.holdsAlias = true;
    if (kind === 'scalar' && (first === '"' || first === "'")) {
      const newline = this.text.indexOf('\n', start);
      if (newline !== -1 && newline < position && !this.isIndentedBlockScalarText(start, newline, position))
        this.differs = true;
    }
    // A block scalar as a document's root may have its lines at column 0, which js-yaml ends it at.
    if ((first === '|' || first === '>') && parent === undefined) this.differs = true;
    const tagLength = first === '!' && kind === 'scalar' ? scalarTagLength(this.text, start) : 0;
    if (tagLength > 0) {
      this.scalarTags.add(start);
      if (this.recordScalars) this.recordScalar(start + tagLength, position, this.text[start + tagLength]);
      return;
    }
    if (first === '!' || first === '&') this.hasProperties = true;
    if ((first === '[' || first === '{') && parent && this.isFlowMappingKey(start, parent.start))
      this.differs = true;
    if (this.recordScalars && kind === 'scalar') this.recordScalar(start, position, first);
  }

  /**
   * A quoted scalar spanning lines that both libraries read alike: in block context (no flow
   * collection around it), each of its lines after the first either empty or indented deeper than
   * the first node of the line it starts on (past any `- `).
   */
  private isIndentedBlockScalarText(start: number, newline: number, end: number): boolean {
    for (const ancestor of this.stack) {
      const opening = this.text[contentStart(this.text, ancestor.start)];
      if (opening === '[' || opening === '{') return false;
    }
    const indent = nodeColumn(this.text, this.text.lastIndexOf('\n', start - 1) + 1);
    for (let line = newline + 1; line < end; line = this.text.indexOf('\n', line) + 1) {
      const spaces = indentationAt(this.text, line);
      const next = this.text[line + spaces];
      if (next !== '\n' && next !== '\r' && spaces <= indent) return false;
      if (this.text.indexOf('\n', line) === -1) break;
    }
    return true;
  }

  /**
   * A collection as a key of a flow mapping (`{a: 1, [b]}`), which js-yaml names otherwise: inside a
   * flow mapping (not the node itself, reported twice) and not after a `:`.
   */
  private isFlowMappingKey(start: number, parentStart: number): boolean {
    const parentContent = contentStart(this.text, parentStart);
    if (parentContent === start || this.text[parentContent] !== '{') return false;
    return !/:\s*$/.test(this.text.slice(Math.max(0, start - 64), start));
  }

  /** Pushes a string scalar holding a `$` to `dollars`, once though js-yaml may report it twice. */
  private recordDollar(
    node: { start: number; line: number },
    start: number,
    first: string | undefined,
    value: string,
  ): void {
    if (first === '*' || first === '&' || first === '!') {
      this.declinesDollars = true;
      return;
    }
    const dollars = this.dollars ?? [];
    if (dollars.at(-1)?.start === start) return;
    const line = node.line + 1 + countBreaks(this.text, node.start, start);
    dollars.push({
      value,
      plain: first !== '"' && first !== "'" && first !== '|' && first !== '>',
      line,
      start,
    });
  }

  /** A scalar's content: a block scalar's from the end of its header line, where `|2-` stands. */
  private recordScalar(start: number, end: number, first: string | undefined): void {
    if (first === '*' || first === '!' || first === '&') return;
    const block = first === '|' || first === '>';
    const from = block ? this.text.indexOf('\n', start) : start;
    let to = end;
    // js-yaml reads on past the spaces and tabs after a plain scalar; they are not its text.
    if (!block && first !== '"' && first !== "'")
      while (to > from && (this.text[to - 1] === ' ' || this.text[to - 1] === '\t')) to--;
    if (from === -1 || from >= to) return;
    this.scalars.push(from, to);
    if (block || first === '"' || first === "'") this.tabSafeScalars.push(from, end);
  }

  agrees(): boolean {
    return !this.differs && this.aliases <= this.maxAliases;
  }

  /** True when each span of `suspects` (start, end, start, end…, by start) lies inside one scalar's content. */
  holdsAll(suspects: readonly number[]): boolean {
    if (suspects.length === 0) return true;
    if (this.hasProperties) return false;
    const scalars = this.scalars;
    // Scalars are read in text order; a key's may be reported twice (its node and the node it starts).
    let at = 0;
    for (let i = 0; i < suspects.length; i += 2) {
      const start = suspects[i] ?? 0;
      const end = suspects[i + 1] ?? 0;
      if (this.scalarTags.has(end - 1)) continue;
      at = lastStartingBy(scalars, start, at);
      if (start < (scalars[at] ?? Infinity) || end > (scalars[at + 1] ?? -Infinity)) return false;
    }
    return true;
  }

  /**
   * True when each tab (positions, ascending) is text of a quoted or block scalar, or of a
   * comment: after a `#` outside every scalar that starts its line or follows a space.
   */
  holdsTabs(tabs: readonly number[]): boolean {
    if (tabs.length === 0) return true;
    if (this.hasProperties) return false;
    const safe = this.tabSafeScalars;
    let at = 0;
    for (const tab of tabs) {
      at = lastStartingBy(safe, tab, at);
      if (tab >= (safe[at] ?? Infinity) && tab < (safe[at + 1] ?? -Infinity)) continue;
      if (!this.isInComment(tab) && !this.isSeparatingSpace(tab)) return false;
    }
    return true;
  }

  /**
   * A tab between the nodes of a block line, past its indentation and outside every scalar
   * (`key:\tvalue`, `- item\t`), which both libraries read as a space: not in a line holding a flow
   * collection's brackets, and not at a line's start or in its indentation.
   */
  private isSeparatingSpace(position: number): boolean {
    if (this.isInScalar(position)) return false;
    const lineStart = this.text.lastIndexOf('\n', position - 1) + 1;
    const lineEnd = this.text.indexOf('\n', position);
    const line = this.text.slice(lineStart, lineEnd === -1 ? undefined : lineEnd);
    return /^ *(?:- +)*[^\s-]/.test(line.slice(0, position - lineStart)) && !/[[\]{}]/.test(line);
  }

  /** Whether a `#` before `position` on its line, outside every scalar, starts a comment holding it. */
  private isInComment(position: number): boolean {
    const lineStart = this.text.lastIndexOf('\n', position - 1) + 1;
    for (let hash = this.text.indexOf('#', lineStart); hash !== -1 && hash < position;) {
      const startsComment = hash === lineStart || this.text[hash - 1] === ' ';
      if (startsComment && !this.isInScalar(hash)) return true;
      hash = this.text.indexOf('#', hash + 1);
    }
    return false;
  }

  private isInScalar(position: number): boolean {
    const spans = this.scalars;
    // Binary search for the last span starting at or before `position`.
    let low = 0;
    let high = spans.length / 2 - 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if ((spans[2 * middle] ?? 0) <= position) low = middle;
      else high = middle - 1;
    }
    return position >= (spans[2 * low] ?? Infinity) && position < (spans[2 * low + 1] ?? -Infinity);
  }
}

/** The scalar tags the fast path reads, with the space after them. */
const SCALAR_TAG = /^!!(?:str|int|float|bool|null|timestamp|binary) /;

/**
 * The length of a `!!str`, `!!int`, `!!float`, `!!bool`, `!!null`, `!!timestamp` or `!!binary` tag and its space, before a
 * plain or quoted scalar on its line, in a mapping's value or a sequence's entry (`key: !!str 1`,
 * `- !!int "7"`), where both libraries read the scalar alike (GO_YAML_SCHEMA and yaml.ts read the
 * types as go-yaml does); 0 for any other tag, or one of these anywhere else: the library takes them.
 */
function scalarTagLength(text: string, start: number): number {
  const tag = SCALAR_TAG.exec(text.slice(start, start + 12))?.[0];
  if (tag === undefined) return 0;
  const next = text[start + tag.length];
  if (next === undefined || ' \t\r\n#!&*|>[]{},?:-%@`'.includes(next)) return 0;
  const lineEnd = text.indexOf('\n', start);
  const rest = text.slice(start + tag.length, lineEnd === -1 ? undefined : lineEnd);
  // The whole scalar on the line, and nothing after it: no key of its own (`- !!str a: b`), no
  // comment, no quoted scalar going on to the next line.
  const alone =
    next === '"' || next === "'" ? /^(?:"[^"\\\n]*"|'[^'\n]*') *$/.test(rest) : !/: |:$|\s#|\t/.test(rest);
  if (!alone) return 0;
  let before = start - 1;
  while (text[before] === ' ') before--;
  if (text[before] === ':') return tag.length;
  const entry =
    text[before] === '-' && (before === 0 || text[before - 1] === ' ' || text[before - 1] === '\n');
  return entry ? tag.length : 0;
}

/** How many line breaks stand between `from` and `to`. */
function countBreaks(text: string, from: number, to: number): number {
  let breaks = 0;
  for (let at = text.indexOf('\n', from); at !== -1 && at < to; at = text.indexOf('\n', at + 1)) breaks++;
  return breaks;
}

/** In `spans` (start, end, start, end…, by start), the last span starting by `position`, searched on from `from`. */
function lastStartingBy(spans: readonly number[], position: number, from: number): number {
  let at = from;
  while (at + 2 < spans.length && (spans[at + 2] ?? 0) <= position) at += 2;
  return at;
}

/** How many spaces start the line at `lineStart`. */
function indentationAt(text: string, lineStart: number): number {
  let at = lineStart;
  while (text.charCodeAt(at) === 0x20) at++;
  return at - lineStart;
}

/** The column of the first node on the line at `lineStart`: past its indentation and any `- `. */
function nodeColumn(text: string, lineStart: number): number {
  let at = lineStart;
  for (;;) {
    const char = text.charCodeAt(at);
    if (char === 0x20 || (char === 0x2d && text.charCodeAt(at + 1) === 0x20)) at++;
    else return at - lineStart;
  }
}

/** Where a node's text starts: past spaces, tabs, line breaks and comments. */
function contentStart(text: string, from: number): number {
  let at = from;
  for (;;) {
    const char = text[at];
    if (char === ' ' || char === '\t' || char === '\n' || char === '\r') at++;
    else if (char === '#') {
      const end = text.indexOf('\n', at);
      if (end === -1) return text.length;
      at = end + 1;
    } else return at;
  }
}

/**
 * True when `value` is JSON the two libraries agree on: nothing `.inf`/`.nan`, no key a null or a
 * collection became (js-yaml names those `null` and `[object Object]`), nested at most `maxDepth`,
 * within the budget of nodes (aliases are counted at each use). On the way, each EXPLICIT_NULL
 * becomes null and each other null field of a map is marked as written with no value.
 */
function settlePlainJson(
  value: unknown,
  depth: number,
  maxDepth: number,
  budget: { nodes: number; readonly settled: WeakSet<object> | undefined },
): value is JsonValue {
  if (depth > maxDepth || value === NOT_JSON || --budget.nodes < 0) return false;
  if (value === null || typeof value !== 'object') return true;
  if (budget.settled?.has(value)) return isPlainJson(value, depth, maxDepth, budget, true);
  budget.settled?.add(value);
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      if (item === EXPLICIT_NULL) value[index] = null;
      else if (!settlePlainJson(item, depth + 1, maxDepth, budget)) return false;
    }
    return true;
  }
  const map = value as Record<string, unknown>;
  for (const key of Object.keys(map)) {
    if (key === EXPLICIT_NULL_KEY || key === 'null' || key === '[object Object]') return false;
    const item = map[key];
    if (item === EXPLICIT_NULL) map[key] = null;
    else if (item === null) markImplicitNull(map, key);
    else if (!settlePlainJson(item, depth + 1, maxDepth, budget)) return false;
  }
  return true;
}

/** settlePlainJson's check alone, for what it has settled already (`counted`: `value` is counted). */
function isPlainJson(
  value: unknown,
  depth: number,
  maxDepth: number,
  budget: { nodes: number },
  counted = false,
): boolean {
  if (depth > maxDepth || value === NOT_JSON || (!counted && --budget.nodes < 0)) return false;
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) return value.every((item) => isPlainJson(item, depth + 1, maxDepth, budget));
  for (const key of Object.keys(value)) {
    if (!isPlainJson((value as Record<string, unknown>)[key], depth + 1, maxDepth, budget)) return false;
  }
  return true;
}
