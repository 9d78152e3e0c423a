// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import path from 'node:path';

/**
 * Layers import inward only (docs/architecture.md "Layers"): each entry lists what a layer must not
 * import. The check resolves every relative import against src/, so it holds in sub-folders too.
 */
const forbiddenByLayer = {
  core: [
    'jq',
    'loader',
    'pipeline',
    'hooks',
    'runtime',
    'delivery',
    'sources',
    'observability',
    'config',
    'cli',
    'processes',
  ],
  jq: [
    'loader',
    'pipeline',
    'hooks',
    'runtime',
    'delivery',
    'sources',
    'observability',
    'config',
    'cli',
    'processes',
  ],
  pipeline: [
    'jq',
    'loader',
    'hooks',
    'runtime',
    'delivery',
    'sources',
    'observability',
    'config',
    'cli',
    'processes',
  ],
  loader: ['pipeline', 'hooks', 'runtime', 'delivery', 'sources', 'config', 'cli', 'processes'],
  hooks: ['runtime', 'delivery', 'sources', 'config', 'cli'],
  delivery: ['hooks', 'runtime', 'sources', 'config', 'cli'],
  sources: ['hooks', 'runtime', 'delivery', 'config', 'cli'],
  observability: [
    'jq',
    'loader',
    'pipeline',
    'hooks',
    'runtime',
    'delivery',
    'sources',
    'config',
    'cli',
    'processes',
  ],
  // What kaddon starts and must not outlive it: only core below it.
  processes: [
    'jq',
    'loader',
    'pipeline',
    'hooks',
    'runtime',
    'delivery',
    'sources',
    'observability',
    'config',
    'cli',
  ],
  config: ['loader', 'pipeline', 'hooks', 'runtime', 'sources', 'cli', 'processes'],
  runtime: ['config', 'cli'],
};

const srcDir = path.join(import.meta.dirname, 'src');

/** @type {import('eslint').Rule.RuleModule} */
const inwardOnly = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    const relative = path.relative(srcDir, context.filename);
    const layer = relative.split(path.sep)[0] ?? '';
    const forbidden = relative.startsWith('..') ? undefined : forbiddenByLayer[layer];
    if (!forbidden) return {};
    /** @param {any} node */
    const check = (node) => {
      const specifier = node.source?.value;
      if (typeof specifier !== 'string' || !specifier.startsWith('.')) return;
      const target = path.relative(srcDir, path.resolve(path.dirname(context.filename), specifier));
      const targetLayer = target.split(path.sep)[0] ?? '';
      if (!target.startsWith('..') && forbidden.includes(targetLayer))
        context.report({
          node: node.source,
          message: `src/${layer} may not import src/${targetLayer} (docs/architecture.md "Layers": arrows point inward only).`,
        });
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};

// A test wires real parts together as the CLI does (a route with the real signature check), so tests
// are left out; nothing imports a test, so they cannot bend the layers.
const layerRules = {
  files: ['src/**/*.ts'],
  ignores: ['**/*.test.ts'],
  plugins: { layers: { rules: { 'inward-only': inwardOnly } } },
  rules: { 'layers/inward-only': 'error' },
};

const pureLayers = ['core', 'pipeline'].map((layer) => ({
  files: [`src/${layer}/**/*.ts`],
  ignores: ['**/*.test.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        paths: ['node:fs', 'node:fs/promises', 'node:child_process', 'node:net', 'node:http'].map((name) => ({
          name,
          message: `src/${layer} does no I/O (docs/architecture.md "Layers"): take the data as an argument.`,
        })),
      },
    ],
  },
}));

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'bench/out/**',
      'test/conformance/corpus/**',
      'examples/**',
      'components/**',
      'eslint.config.js',
      'bin/**',
      'scripts/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] },
          ],
        },
      ],
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowBoolean: true },
      ],
      '@typescript-eslint/no-unnecessary-condition': ['error', { allowConstantLoopConditions: true }],
    },
  },
  layerRules,
  ...pureLayers,
  {
    files: ['test/**/*.ts', 'src/**/*.test.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
