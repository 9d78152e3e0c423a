// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Layers import inward only (docs/architecture.md "Layers"): each entry lists what a layer must not import. */
const forbiddenByLayer = {
  core: ['loader', 'pipeline', 'hooks', 'runtime', 'delivery', 'sources', 'observability', 'cli', 'config'],
  pipeline: ['loader', 'hooks', 'runtime', 'delivery', 'sources', 'observability', 'cli'],
  loader: ['pipeline', 'hooks', 'runtime', 'delivery', 'sources', 'cli'],
  hooks: ['runtime', 'cli'],
  delivery: ['runtime', 'cli'],
  sources: ['runtime', 'cli'],
  observability: ['runtime', 'cli'],
  runtime: ['cli'],
};

const layerRules = Object.entries(forbiddenByLayer).map(([layer, forbidden]) => ({
  files: [`src/${layer}/**/*.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: forbidden.map((target) => ({
          group: [`../${target}/*`, `../../${target}/*`],
          message: `src/${layer} may not import src/${target} (docs/architecture.md "Layers": arrows point inward only).`,
        })),
      },
    ],
  },
}));

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
        patterns: (forbiddenByLayer[layer] ?? []).map((target) => ({
          group: [`../${target}/*`, `../../${target}/*`],
          message: `src/${layer} may not import src/${target}.`,
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
  ...layerRules,
  ...pureLayers,
  {
    files: ['test/**/*.ts', 'src/**/*.test.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
