import { KaddonError } from './errors.ts';
import type { JsonValue } from './json.ts';

/** Looks a reference name up; undefined means unresolved (the reference stays verbatim). */
export type VarLookup = (name: string) => JsonValue | undefined;

export interface Expansion {
  /** The result: the referenced value itself when the input is exactly one resolved reference. */
  readonly value: JsonValue;
  /** Names that resolved, in order of appearance. */
  readonly resolved: readonly string[];
  /** Names that did not resolve and were left verbatim, in order of appearance. */
  readonly unresolved: readonly string[];
}

/** A map or list referenced from inside a longer string, which has no string form. */
export class VarTypeError extends KaddonError {
  readonly code = 'var-type';
  readonly reference: string;
  /** `where` names the file and line of the reference when the caller knows them. */
  constructor(reference: string, where?: string) {
    super(
      `${where === undefined ? '' : `file '${where}': `}reference '$(${reference})': the value is a map or list and cannot be put inside a string.`,
      'Reference a scalar value, or make the reference the whole field.',
    );
    this.reference = reference;
  }
}

/**
 * Expands `$(name)` references in one pass, left to right, with the syntax of docs/modules.md "`$(var)` from
 * values" ("Kubernetes $(var) expansion"): `$$` is an escaped `$`; `$(` up to the first `)` is a reference;
 * an unknown reference, a `$(` without `)`, and `$` before anything else stay as written. Substituted values
 * are never scanned again.
 */
export function expandVars(input: string, lookup: VarLookup): Expansion {
  const resolved: string[] = [];
  const unresolved: string[] = [];
  const whole = wholeReference(input);
  if (whole !== undefined) {
    const value = lookup(whole);
    if (value !== undefined) return { value, resolved: [whole], unresolved };
  }
  let out = '';
  let i = 0;
  while (i < input.length) {
    const dollar = input.indexOf('$', i);
    if (dollar < 0 || dollar === input.length - 1) {
      out += input.slice(i);
      break;
    }
    out += input.slice(i, dollar);
    const next = input[dollar + 1];
    if (next === '$') {
      out += '$';
      i = dollar + 2;
    } else if (next === '(') {
      const close = input.indexOf(')', dollar + 2);
      if (close < 0) {
        out += input.slice(dollar);
        break;
      }
      const name = input.slice(dollar + 2, close);
      const value = lookup(name);
      if (value === undefined) {
        unresolved.push(name);
        out += `$(${name})`;
      } else {
        resolved.push(name);
        out += formatScalar(name, value);
      }
      i = close + 1;
    } else {
      out += '$';
      i = dollar + 1;
    }
  }
  return { value: out, resolved, unresolved };
}

/** The name when the input is exactly one `$(name)` and nothing else. */
function wholeReference(input: string): string | undefined {
  if (!input.startsWith('$(') || !input.endsWith(')')) return undefined;
  const name = input.slice(2, -1);
  return name.includes(')') ? undefined : name;
}

function formatScalar(name: string, value: JsonValue): string {
  if (value === null) return '';
  if (typeof value === 'object') throw new VarTypeError(name);
  return String(value);
}
