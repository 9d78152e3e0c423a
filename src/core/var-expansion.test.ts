import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expandVars, VarTypeError } from './var-expansion.ts';

const vars: Record<string, string> = {
  VAR_A: 'A',
  VAR_B: 'B',
  VAR_C: 'C',
  VAR_REF: '$(VAR_A)',
  VAR_EMPTY: '',
};
const lookup = (name: string): string | undefined => vars[name];

// Every row of the table in docs/modules.md "`$(var)` from values", input and result verbatim.
const seedTable: [string, string][] = [
  ['$(VAR_A)', 'A'],
  ['___$(VAR_B)___', '___B___'],
  ['___$(VAR_C)', '___C'],
  ['$(VAR_A)-$(VAR_A)', 'A-A'],
  ['$(VAR_A)-1', 'A-1'],
  ['$(VAR_A)_$(VAR_B)_$(VAR_C)', 'A_B_C'],
  ['$$(VAR_B)_$(VAR_A)', '$(VAR_B)_A'],
  ['$$(VAR_A)_$$(VAR_B)', '$(VAR_A)_$(VAR_B)'],
  ['f000-$$VAR_A', 'f000-$VAR_A'],
  ['foo\\$(VAR_C)bar', 'foo\\Cbar'],
  ['foo\\\\$(VAR_C)bar', 'foo\\\\Cbar'],
  ['foo\\\\\\\\$(VAR_A)bar', 'foo\\\\\\\\Abar'],
  ['$(VAR_A$(VAR_B))', '$(VAR_A$(VAR_B))'],
  ['$(VAR_A$(VAR_B)', '$(VAR_A$(VAR_B)'],
  ['$(VAR_REF)', '$(VAR_A)'],
  ['%%$(VAR_REF)--$(VAR_REF)%%', '%%$(VAR_A)--$(VAR_A)%%'],
  ['foo$(VAR_EMPTY)bar', 'foobar'],
  ['foo$(VAR_Awhoops!', 'foo$(VAR_Awhoops!'],
  ['f00__(VAR_A)__', 'f00__(VAR_A)__'],
  ['$?_boo_$!', '$?_boo_$!'],
  ['$VAR_A', '$VAR_A'],
  ['$(VAR_DNE)', '$(VAR_DNE)'],
  ['$$$$$$(BIG_MONEY)', '$$$(BIG_MONEY)'],
  ['$$$$$$(VAR_A)', '$$$(VAR_A)'],
  ['$$$$$$$(GOOD_ODDS)', '$$$$(GOOD_ODDS)'],
  ['$$$$$$$(VAR_A)', '$$$A'],
  ['$VAR_A)', '$VAR_A)'],
  ['${VAR_A}', '${VAR_A}'],
  ['$(VAR_B)_______$(A', 'B_______$(A'],
];

describe('expandVars', () => {
  for (const [input, expected] of seedTable) {
    it(`expands ${JSON.stringify(input)} to ${JSON.stringify(expected)} as docs/modules.md says`, () => {
      assert.equal(expandVars(input, lookup).value, expected);
    });
  }

  it('keeps the type of a value when the input is exactly one reference', () => {
    const typed = expandVars('$(replicas)', (name) => (name === 'replicas' ? 3 : undefined));
    assert.equal(typed.value, 3);
    const inString = expandVars('n=$(replicas)', (name) => (name === 'replicas' ? 3 : undefined));
    assert.equal(inString.value, 'n=3');
  });

  it('reports resolved and unresolved names', () => {
    const result = expandVars('$(VAR_A)-$(MISSING)-$(VAR_B)', lookup);
    assert.deepEqual(result.resolved, ['VAR_A', 'VAR_B']);
    assert.deepEqual(result.unresolved, ['MISSING']);
  });

  it('refuses a map inside a longer string', () => {
    assert.throws(() => expandVars('x-$(obj)', () => ({ a: 1 })), VarTypeError);
    assert.deepEqual(expandVars('$(obj)', () => ({ a: 1 })).value, { a: 1 });
  });
});
