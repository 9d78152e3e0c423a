import { compileRe2 } from '../core/re2.ts';
import { KaddonError } from '../core/errors.ts';
import type { Selector } from '../core/kustomization.ts';
import { isClusterScoped, type ResId } from '../core/res-id.ts';
import type { Resource } from '../core/resource.ts';

/** A target selector, or a label or annotation selector, that kustomize would refuse. */
export class SelectorError extends KaddonError {
  readonly code = 'selector-invalid';

  constructor(subject: string, text: string, problem: string, hint: string) {
    super(`${subject} '${text}': ${problem}.`, hint);
  }
}

export const LABEL_SELECTOR_HINT =
  'Use Kubernetes label-selector syntax: key=value, key!=value, key in (a,b), key notin (a), key, !key, ' +
  'joined by commas; keys and values must be valid label keys and values.';

/**
 * Whether a `patches` target (or any Selector) picks the resource (kustomize's api/types/selector.go): group,
 * version and kind as anchored regexes against the current id; name against the original and the current
 * name; namespace against the original and the current effective namespace; then the label and annotation
 * selectors.
 */
export function isSelected(resource: Resource, selector: Selector): boolean {
  const compiled = compileSelector(selector);
  const current = resource.id;
  const original = resource.originalId;
  return (
    matchesEither(compiled.kind, current.kind) &&
    matchesEither(compiled.group, current.group) &&
    matchesEither(compiled.version, current.version) &&
    matchesEither(compiled.name, original.name, current.name) &&
    matchesEither(compiled.namespace, selectorNamespace(original), selectorNamespace(current)) &&
    matchesLabelSelector(compiled.labels, resource.labels()) &&
    matchesLabelSelector(compiled.annotations, resource.annotations())
  );
}

interface CompiledSelector {
  readonly group: GoRegExp | undefined;
  readonly version: GoRegExp | undefined;
  readonly kind: GoRegExp | undefined;
  readonly name: GoRegExp | undefined;
  readonly namespace: GoRegExp | undefined;
  readonly labels: readonly LabelRequirement[];
  readonly annotations: readonly LabelRequirement[];
}

const compiledSelectors = new WeakMap<Selector, CompiledSelector>();

function compileSelector(selector: Selector): CompiledSelector {
  const cached = compiledSelectors.get(selector);
  if (cached) return cached;
  const compiled: CompiledSelector = {
    group: anchoredPattern('group', selector.group),
    version: anchoredPattern('version', selector.version),
    kind: anchoredPattern('kind', selector.kind),
    name: anchoredPattern('name', selector.name),
    namespace: anchoredPattern('namespace', selector.namespace),
    labels: parseLabelSelector(selector.labelSelector ?? '', 'labelSelector'),
    annotations: parseLabelSelector(selector.annotationSelector ?? '', 'annotationSelector'),
  };
  compiledSelectors.set(selector, compiled);
  return compiled;
}

function anchoredPattern(field: string, pattern: string | undefined): GoRegExp | undefined {
  if (!pattern) return undefined;
  const regexp = compileGoRegExp(pattern, { before: '^(?:', after: ')$' });
  if (regexp) return regexp;
  throw new SelectorError(
    `selector ${field}`,
    pattern,
    'is not a valid regular expression',
    'Fix the pattern: selector fields are Go (RE2) regular expressions matched against the whole value.',
  );
}

function matchesEither(pattern: GoRegExp | undefined, ...values: string[]): boolean {
  return pattern === undefined || values.some((value) => pattern.test(value));
}

/** `default` for namespaced objects without a namespace; cluster-scoped objects have none (kustomize's
 * api/types/selector.go). */
function selectorNamespace(id: ResId): string {
  if (isClusterScoped(id)) return '';
  return id.namespace === '' ? 'default' : id.namespace;
}

/**
 * Patterns of literal characters and `.` only, like most image names and selector values: these
 * compile to a JavaScript RegExp, which matches them in linear time too and costs far less than
 * re2js to start (docs/performance.md).
 */
const PLAIN_PATTERN = /^[A-Za-z0-9_./:@ -]*$/;

/** A compiled Go regular expression: only whether it matches is asked. */
export interface GoRegExp {
  test(text: string): boolean;
}

/**
 * Compiles a Go (RE2) pattern, wrapped in `before`/`after`, with re2js, a port of RE2: the same
 * syntax kustomize's Go code accepts (`(?i)`, `(?P<name>`, `\A`, `[[:alpha:]]`, …) and matching in
 * linear time, so a pattern in a kustomization cannot make a build take exponential time. Undefined
 * when RE2 refuses the pattern (lookaround, backreferences, a syntax error).
 */
export function compileGoRegExp(
  pattern: string,
  around: { readonly before: string; readonly after: string } = { before: '', after: '' },
): GoRegExp | undefined {
  const key = `${around.before}\0${pattern}\0${around.after}`;
  let compiled = compiledPatterns.get(key);
  if (compiled === undefined) {
    compiled = compile(pattern, around);
    if (compiled === undefined) return undefined;
    if (compiledPatterns.size >= MAX_COMPILED_PATTERNS)
      compiledPatterns.delete(compiledPatterns.keys().next().value ?? '');
    compiledPatterns.set(key, compiled);
  }
  return compiled;
}

function compile(
  pattern: string,
  around: { readonly before: string; readonly after: string },
): GoRegExp | undefined {
  if (PLAIN_PATTERN.test(pattern)) {
    // Literal text and `.` read the same in both engines; '.' is spelled out as RE2's (not \r-aware).
    const native = new RegExp(`${around.before}${pattern.replace(/\./g, '[^\\n]')}${around.after}`, 'u');
    return { test: (text) => native.test(text) };
  }
  try {
    return compileRe2(`${around.before}${pattern}${around.after}`);
  } catch {
    return undefined;
  }
}

/**
 * Compiled patterns by their text: every module that uses a shared component (`kind:
 * Deployment|StatefulSet|DaemonSet`) reads its own copy of the component's selectors, and the
 * operator keeps each module's read; one compiled program per pattern instead of one per copy
 * (some 4 kB each in re2js). A test keeps no state (a RegExp without `g`, a new re2js matcher per
 * call), so a compiled pattern is shared as it is. Bounded, oldest first out.
 */
const compiledPatterns = new Map<string, GoRegExp>();
const MAX_COMPILED_PATTERNS = 1000;

/** One requirement of a Kubernetes label selector. */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  readonly values: readonly string[];
}

type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

/** True when the labels (or annotations) satisfy every requirement; an empty selector matches all. */
export function matchesLabelSelector(
  requirements: readonly LabelRequirement[],
  labels: Readonly<Record<string, string>>,
): boolean {
  return requirements.every((requirement) => matchesRequirement(requirement, labels));
}

function matchesRequirement(
  requirement: LabelRequirement,
  labels: Readonly<Record<string, string>>,
): boolean {
  const value = Object.hasOwn(labels, requirement.key) ? labels[requirement.key] : undefined;
  switch (requirement.operator) {
    case 'in':
    case '=':
    case '==':
      return value !== undefined && requirement.values.includes(value);
    case 'notin':
    case '!=':
      return value === undefined || !requirement.values.includes(value);
    case 'exists':
      return value !== undefined;
    case '!':
      return value === undefined;
    case 'gt':
    case 'lt':
      return value !== undefined && compareIntegers(value, requirement);
  }
}

function compareIntegers(value: string, requirement: LabelRequirement): boolean {
  if (!/^[+-]?\d+$/.test(value)) return false;
  const actual = Number(value);
  const limit = Number(requirement.values[0]);
  return requirement.operator === 'gt' ? actual > limit : actual < limit;
}

type TokenType = 'id' | 'in' | 'notin' | '(' | ')' | ',' | '!' | '=' | '==' | '!=' | '>' | '<' | 'end';

interface Token {
  readonly type: TokenType;
  readonly text: string;
}

const SPECIAL = new Set(['=', '!', '(', ')', ',', '>', '<']);
const WHITESPACE = new Set([' ', '\t', '\r', '\n']);

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text.charAt(i);
    if (WHITESPACE.has(ch)) {
      i++;
    } else if (SPECIAL.has(ch)) {
      const pair = text.slice(i, i + 2);
      const symbol = pair === '==' || pair === '!=' ? pair : ch;
      tokens.push({ type: symbol as TokenType, text: symbol });
      i += symbol.length;
    } else {
      let end = i;
      while (end < text.length && !WHITESPACE.has(text.charAt(end)) && !SPECIAL.has(text.charAt(end))) end++;
      const word = text.slice(i, end);
      tokens.push({ type: word === 'in' || word === 'notin' ? word : 'id', text: word });
      i = end;
    }
  }
  tokens.push({ type: 'end', text: 'end of string' });
  return tokens;
}

/**
 * Parses Kubernetes label-selector syntax as k8s.io/apimachinery does (kustomize uses the same
 * parser for annotation selectors): `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`,
 * `a>1`, `a<1`, joined by commas. `field` names the selector field in errors; `fail` replaces the
 * SelectorError for callers that report with their own file.
 */
export function parseLabelSelector(
  text: string,
  field = 'labelSelector',
  fail: (problem: string) => never = (problem) => {
    throw new SelectorError(field, text, problem, LABEL_SELECTOR_HINT);
  },
): LabelRequirement[] {
  return new LabelSelectorParser(tokenize(text), fail).parse();
}

const OPERATORS: ReadonlySet<TokenType> = new Set(['in', 'notin', '=', '==', '!=', '>', '<']);

class LabelSelectorParser {
  private position = 0;

  constructor(
    private readonly tokens: readonly Token[],
    private readonly fail: (problem: string) => never,
  ) {}

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const next = this.peek();
      if (next.type === 'end') return requirements;
      if (next.type !== 'id' && next.type !== '!')
        this.fail(`found '${next.text}', expected: !, identifier, or end of string`);
      requirements.push(this.requirement());
      const separator = this.take();
      if (separator.type === 'end') return requirements;
      if (separator.type !== ',') this.fail(`found '${separator.text}', expected: ',' or end of string`);
      const after = this.peek();
      if (after.type !== 'id' && after.type !== '!')
        this.fail(`found '${after.text}', expected: identifier after ','`);
    }
  }

  /** In value position the words `in` and `notin` are plain identifiers. */
  private peek(): Token {
    const token = this.tokens[this.position] ?? { type: 'end', text: 'end of string' };
    return token.type === 'in' || token.type === 'notin' ? { type: 'id', text: token.text } : token;
  }

  private take(): Token {
    const token = this.peek();
    this.position++;
    return token;
  }

  private requirement(): LabelRequirement {
    let token = this.take();
    const negated = token.type === '!';
    if (negated) token = this.take();
    if (token.type !== 'id') this.fail(`found '${token.text}', expected: identifier`);
    const key = token.text;
    if (!isQualifiedName(key)) this.fail(`'${key}' is not a valid label key`);
    const next = this.peek();
    if (negated || next.type === 'end' || next.type === ',') {
      return { key, operator: negated ? '!' : 'exists', values: [] };
    }
    const operator = this.tokens[this.position] ?? next;
    this.position++;
    if (!OPERATORS.has(operator.type)) {
      this.fail(`found '${operator.text}', expected: in, notin, =, ==, !=, gt, lt`);
    }
    const values =
      operator.type === 'in' || operator.type === 'notin' ? this.valueSet() : [this.exactValue()];
    return this.validated(key, operatorOf(operator.type), values);
  }

  private valueSet(): string[] {
    const open = this.take();
    if (open.type !== '(') this.fail(`found '${open.text}', expected: '('`);
    const first = this.peek();
    if (first.type === ')') {
      this.position++;
      return [''];
    }
    if (first.type !== 'id' && first.type !== ',')
      this.fail(`found '${first.text}', expected: ',', ')' or identifier`);
    const values = this.valueList();
    const close = this.take();
    if (close.type !== ')') this.fail(`found '${close.text}', expected: ')'`);
    return values;
  }

  /** `(a,b)`; empty entries as in `(,a)`, `(a,)` or `(a,,b)` stand for the empty value. */
  private valueList(): string[] {
    const values = new Set<string>();
    for (;;) {
      const token = this.take();
      if (token.type === 'id') {
        values.add(token.text);
        const next = this.peek();
        if (next.type === ')') return [...values];
        if (next.type !== ',') this.fail(`found '${next.text}', expected: ',' or ')'`);
      } else if (token.type === ',') {
        if (values.size === 0) values.add('');
        const next = this.peek();
        if (next.type === ')') {
          values.add('');
          return [...values];
        }
        if (next.type === ',') {
          this.position++;
          values.add('');
        }
      } else {
        this.fail(`found '${token.text}', expected: ',', or identifier`);
      }
    }
  }

  private exactValue(): string {
    const next = this.peek();
    if (next.type === 'end' || next.type === ',') return '';
    const token = this.take();
    if (token.type !== 'id') this.fail(`found '${token.text}', expected: identifier`);
    return token.text;
  }

  private validated(key: string, operator: LabelOperator, values: string[]): LabelRequirement {
    if ((operator === 'gt' || operator === 'lt') && !values.every((value) => /^[+-]?\d+$/.test(value))) {
      this.fail(`for 'gt' and 'lt' the value must be an integer`);
    }
    for (const value of values) {
      if (!isLabelValue(value)) this.fail(`'${value}' is not a valid label value`);
    }
    return { key, operator, values };
  }
}

function operatorOf(type: TokenType): LabelOperator {
  if (type === '>') return 'gt';
  if (type === '<') return 'lt';
  return type as LabelOperator;
}

const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** A label key: `name` or `prefix/name`, the prefix a DNS subdomain (k8s IsQualifiedName). */
function isQualifiedName(key: string): boolean {
  const parts = key.split('/');
  const name = parts.length === 2 ? parts[1] : parts[0];
  if (parts.length > 2 || name === undefined || name.length > 63 || !LABEL_NAME.test(name)) return false;
  const prefix = parts.length === 2 ? parts[0] : undefined;
  return prefix === undefined || (prefix.length <= 253 && DNS_SUBDOMAIN.test(prefix));
}

function isLabelValue(value: string): boolean {
  return value === '' || (value.length <= 63 && LABEL_NAME.test(value));
}
