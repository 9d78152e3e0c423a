import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VarTypeError } from './var-expansion.ts';
import { parseYamlDocuments, stringifyYaml, type YamlExpansion } from './yaml.ts';

const values: Record<string, unknown> = {
  replicas: 3,
  port: '8080',
  debug: true,
  labels: { a: 'b' },
  host: 'example.com',
};

function expand(text: string, unresolved: string[] = []): unknown {
  const expansion: YamlExpansion = {
    lookup: (name) => values[name] as never,
    onUnresolved: (name, file, line) => unresolved.push(`${name}@${file}:${line}`),
  };
  return parseYamlDocuments(text, 'f.yaml', expansion)[0]?.value;
}

describe('$(var) expansion while parsing YAML', () => {
  it('gives a plain scalar that is exactly one reference the value and its type', () => {
    assert.deepEqual(expand('replicas: $(replicas)\ndebug: $(debug)\nlabels: $(labels)\n'), {
      replicas: 3,
      debug: true,
      labels: { a: 'b' },
    });
  });

  it('keeps quoted and block scalars strings', () => {
    assert.deepEqual(expand('a: "$(replicas)"\nb: \'$(debug)\'\nc: |\n  n=$(replicas)\n'), {
      a: '3',
      b: 'true',
      c: 'n=3\n',
    });
  });

  it('formats references inside longer strings and leaves unknown ones, reporting the line', () => {
    const unresolved: string[] = [];
    assert.deepEqual(expand('host: web.$(host)\nother:\n  x: $(nope)-1\n', unresolved), {
      host: 'web.example.com',
      other: { x: '$(nope)-1' },
    });
    assert.deepEqual(unresolved, ['nope@f.yaml:3']);
  });

  it('refuses a map referenced inside a string or a quoted scalar', () => {
    assert.throws(() => expand('x: a-$(labels)\n'), VarTypeError);
    assert.throws(() => expand('x: "$(labels)"\n'), VarTypeError);
  });

  it('leaves a document annotated kaddon.io/expand-vars: "false" as written', () => {
    const text =
      'metadata:\n  annotations:\n    kaddon.io/expand-vars: "false"\ndata:\n  s: echo $$(date) $(replicas)\n';
    assert.deepEqual(expand(text), {
      metadata: { annotations: { 'kaddon.io/expand-vars': 'false' } },
      data: { s: 'echo $$(date) $(replicas)' },
    });
  });

  it('does not expand keys', () => {
    assert.deepEqual(expand('$(replicas): x\n'), { '$(replicas)': 'x' });
  });
});

describe('stringifyYaml', () => {
  it('prints like go-yaml: sorted keys, double quotes for YAML 1.1 look-alikes, single quotes otherwise', () => {
    assert.equal(
      stringifyYaml({ b: 'yes', a: ['on', '1.0', 'x: y', ''], c: 'plain' }),
      'a:\n- "on"\n- "1.0"\n- \'x: y\'\n- ""\nb: "yes"\nc: plain\n',
    );
  });
});
