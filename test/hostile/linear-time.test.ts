import assert from 'node:assert/strict';
import { chmodSync } from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli } from '../run-cli.ts';
import { makeTempTree } from '../temp-tree.ts';

/**
 * Parsing and expansion take time linear in the input on every path a file takes (docs/modules.md
 * "Limits on input"): for each kind of file, four times the input takes at most about four times
 * the time. These are complexity checks, not timings: each measures a build at sizes 1, n and 4n
 * (the least of two runs each) and bounds (T(4n) − T(1)) / (T(n) − T(1)) generously, below 8; a
 * linear path gives about 4, a quadratic one about 16 every time. T is the CPU time this process
 * spends on the build (process.cpuUsage), not the wall time, so other work on the machine does not
 * stretch it (docs/testing.md "Tests that do not depend on the machine's load"). A path is still
 * measured again, up to three times, until one growth is below the bound. The figures are printed
 * for the record.
 */
const tmp = makeTempTree('linear');
after(() => {
  tmp.remove();
});

/** One path: the files of a tree with `n` entries, and the command line that reads them. */
interface SizedInput {
  readonly files: (n: number) => Record<string, string>;
  readonly args: (dir: string) => string[];
  /** The exit code every size must give (1 where the input is refused at its end). */
  readonly code?: number;
  /** Entries at size n when not SIZE (ajv compiles a schema at about 0.3 ms a property). */
  readonly size?: number;
}

const keys = (n: number, indent: string, prefix = 'k'): string =>
  Array.from({ length: n }, (_, i) => `${indent}${prefix}${String(i)}: v${String(i)}\n`).join('');
const configMap = (data: string, extra = ''): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n${data}${extra}`;
const modulesTree = (extra: Record<string, string>): Record<string, string> => ({
  'modules/values.yaml': 'appEnabled: true\napp:\n  name: x\n',
  'modules/010-app/kustomization.yaml': 'resources: [cm.yaml]\n',
  'modules/010-app/cm.yaml': configMap('  a: b\n'),
  ...extra,
});
/** One resource of `n` list items and a block scalar of `n` lines (with tabs), in one document. */
const listAndText = (n: number): string =>
  'apiVersion: example.com/v1\nkind: Big\nmetadata:\n  name: big\nspec:\n  items:\n' +
  Array.from({ length: n }, (_, i) => `  - name: n${String(i)}\n    value: ${String(i)}\n`).join('') +
  '  text: |\n' +
  Array.from({ length: n }, (_, i) => `    line ${String(i)}\tof the text\n`).join('');
const kustomize = (dir: string): string[] => ['kustomize', dir];
const build = (dir: string): string[] => ['build', path.join(dir, 'modules')];

const HOOK =
  '#!/bin/bash\nif [ "$1" = "--config" ]; then echo \'{"configVersion":"v1","beforeHelm":1}\'; exit 0; fi\n' +
  'cat "$(dirname "$0")/patch.json" > "$VALUES_JSON_PATCH_PATH"\n';

const paths: Record<string, SizedInput> = {
  'a resource with a tab in a comment': {
    files: (n) => ({
      'kustomization.yaml': 'resources: [cm.yaml]\n',
      'cm.yaml': configMap(keys(n, '  '), '#\tend\n'),
    }),
    args: kustomize,
  },
  'a resource with a tab after a key': {
    files: (n) => ({
      'kustomization.yaml': 'resources: [cm.yaml]\n',
      'cm.yaml': configMap(keys(n, '  '), 'extra:\tend\n'),
    }),
    args: kustomize,
  },
  'a resource with a !!str tag': {
    files: (n) => ({
      'kustomization.yaml': 'resources: [cm.yaml]\n',
      'cm.yaml': configMap(keys(n, '  '), 'extra: !!str 1\n'),
    }),
    args: kustomize,
  },
  'one document of a long list and a long text, with a tagged block scalar (the yaml library)': {
    files: (n) => ({
      'kustomization.yaml': 'resources: [big.yaml]\n',
      'big.yaml': `${listAndText(n)}  extra: !!binary |\n    aGk=\n`,
    }),
    args: kustomize,
  },
  'a resource with a merge key at its end': {
    files: (n) => ({
      'kustomization.yaml': 'resources: [cm.yaml]\n',
      'cm.yaml': configMap(`  first: &a\n    a: b\n${keys(n, '  ')}`, '  <<: *a\n'),
    }),
    args: kustomize,
  },
  'a resource with a duplicate key at its end (refused)': {
    files: (n) => ({
      'kustomization.yaml': 'resources: [cm.yaml]\n',
      'cm.yaml': configMap(`${keys(n, '  ')}  k0: again\n`),
    }),
    args: kustomize,
    code: 1,
    // js-yaml stops at the key, having built nothing yet: many keys for a measurable time.
    size: 50_000,
  },
  'a module resource with a $(var) to expand': {
    files: (n) =>
      modulesTree({ 'modules/010-app/cm.yaml': configMap(`${keys(n, '  ')}  name: $(app.name)\n`) }),
    args: build,
  },
  'a kustomization with a tab': {
    files: (n) => ({
      'kustomization.yaml': `resources: [cm.yaml]\ncommonAnnotations:\n${keys(n, '  ')}#\tend\n`,
      'cm.yaml': configMap('  a: b\n'),
    }),
    args: kustomize,
  },
  'a values.yaml with a tab': {
    files: (n) => modulesTree({ 'modules/values.yaml': `appEnabled: true\napp:\n${keys(n, '  ')}#\tend\n` }),
    args: build,
  },
  'an OpenAPI schema with a tab': {
    files: (n) =>
      modulesTree({
        'modules/010-app/openapi/config-values.yaml': `type: object\nproperties:\n  name: {type: string}\n${Array.from(
          { length: n },
          (_, i) => `  p${String(i)}: {type: string}\n`,
        ).join('')}#\tend\n`,
      }),
    args: build,
    size: 1_000,
  },
  'generator sources (an env file and a file)': {
    files: (n) => ({
      'kustomization.yaml':
        'configMapGenerator:\n- name: g\n  envs: [a.env]\n- name: h\n  files: [big.txt]\n',
      'a.env': Array.from({ length: n }, (_, i) => `K${String(i)}=v${String(i)}\n`).join(''),
      'big.txt': 'x'.repeat(n * 20),
    }),
    args: kustomize,
  },
  "a hook's values patch": {
    files: (n) =>
      modulesTree({
        'modules/010-app/hooks/patch.sh': HOOK,
        'modules/010-app/hooks/patch.json': JSON.stringify(
          Array.from({ length: n }, (_, i) => ({ op: 'add', path: `/app/k${String(i)}`, value: i })),
        ),
      }),
    args: (dir) => ['build', '--run-hooks', path.join(dir, 'modules')],
    // Starting the hook costs as much as reading thousands of operations: more of them.
    size: 20_000,
  },
};

// A full collection before each run, so that garbage from earlier runs is not collected (and
// timed) during the next: the test process keeps every size's heap otherwise.
v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;

/** CPU time of this process since `start`, user and system, in milliseconds. */
function cpuMsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/**
 * The least CPU time of `runs` runs of the command on a tree of size `n`, in milliseconds: a
 * collection or a cache miss only ever adds time, so the minimum is the steadiest estimate.
 */
async function fastestMs(name: string, input: SizedInput, n: number, runs = 2): Promise<number> {
  const files = input.files(n);
  const dir = tmp.write(`${name}-${String(n)}`, files);
  if ('modules/010-app/hooks/patch.sh' in files)
    chmodSync(path.join(dir, 'modules/010-app/hooks/patch.sh'), 0o755);
  const times: number[] = [];
  for (let run = 0; run < runs; run++) {
    collectGarbage();
    const started = process.cpuUsage();
    const outcome = await runCli(input.args(dir));
    times.push(cpuMsSince(started));
    assert.equal(outcome.code, input.code ?? 0, outcome.stderr.slice(0, 2000));
  }
  return Math.min(...times);
}

/** Keys per input: enough that parsing, not start-up, dominates T(n). */
const SIZE = 6_000;

/** How many times larger the second size is, and the growth that fails the check. */
const FACTOR = 4;
const BOUND = 8;

/** Measurements of one path before it is called superlinear: a spike of load fails one, not three. */
const ATTEMPTS = 3;

describe('parsing is linear in the input on every path', () => {
  let index = 0;
  for (const [label, input] of Object.entries(paths)) {
    const name = `p${String(index++)}`;
    it(`${label}: four times the input takes at most about four times the time`, async () => {
      const size = input.size ?? SIZE;
      await fastestMs(name, input, size, 1); // warm-up
      const growths: number[] = [];
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        const base = await fastestMs(name, input, 1);
        const single = (await fastestMs(name, input, size)) - base;
        const larger = (await fastestMs(name, input, FACTOR * size)) - base;
        const growth = larger / Math.max(single, 1);
        growths.push(growth);
        console.log(
          `# ${label}: CPU T(1) ${base.toFixed(0)} ms, T(n) − T(1) ${single.toFixed(0)} ms, T(${String(FACTOR)}n) − T(1) ${larger.toFixed(0)} ms, growth ${growth.toFixed(2)}`,
        );
        if (growth < BOUND) break;
      }
      const growth = Math.min(...growths);
      assert.ok(
        growth < BOUND,
        `growth ${growths.map((g) => g.toFixed(2)).join(', ')} when the input grows ${String(FACTOR)} times, in ${String(ATTEMPTS)} measurements: time is not linear in the input`,
      );
    });
  }
});
