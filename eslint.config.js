// ESLint (flat config): correctness rules only; prettier owns layout (eslint-config-prettier turns
// off every rule that would fight it). Type-aware rules run on TypeScript's project service.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'datasets/**', 'reports/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['vitest.config.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // A promise nobody awaits loses its error (a silent wrong number, or an exit before the write).
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // Variants are unions on `kind` handled by an exhaustive switch (STYLE.md habit 3).
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // Under verbatimModuleSyntax, `import { type A } from 'm'` still runs m (an empty import is
      // kept): a module that builds zod schemas at load was run by `simulate` for a type alone.
      '@typescript-eslint/no-import-type-side-effects': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    // Output goes through the injected CliIo (src/cli/io.ts) so tests capture it.
    files: ['src/**/*.ts'],
    rules: { 'no-console': 'error' },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    // Scripts run on Node: its globals (TypeScript files get them from @types/node instead).
    languageOptions: {
      globals: Object.fromEntries(
        [
          'process',
          'console',
          'URL',
          'Buffer',
          'performance',
          'setTimeout',
          'clearTimeout',
          'setInterval',
          'clearInterval',
          'TextDecoder',
          'TextEncoder',
          'structuredClone',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  { rules: { eqeqeq: ['error', 'always'] } },
  prettier,
);
