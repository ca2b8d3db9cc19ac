// Lint: type-checked typescript-eslint rules, no explicit any, no floating promises, no focused or skipped tests.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      'openapi/**',
      'data/**',
      'scratch/**',
      'test/clients/typescript/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['eslint.config.js', 'scripts/*.mjs', 'bin/*.js', 'bench/lib/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always'],
      'no-console': 'error',
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'MemberExpression[object.name=/^(it|test|describe)$/][property.name=/^(only|skip|todo)$/]',
          message: 'Focused, skipped or todo tests hide failures.',
        },
        {
          // eventually() throws when its condition never holds and returns nothing, so a check of its answer never runs.
          selector:
            ':matches(CallExpression, VariableDeclarator, AssignmentExpression, UnaryExpression) > AwaitExpression > CallExpression[callee.name="eventually"]',
          message: 'eventually() returns nothing: await it on its own line (its detail option says what the test saw).',
        },
      ],
    },
  },
  // Import rules between layers (lib, platform, logging, http, config, features, composition) and no cycles are
  // enforced by dependency-cruiser (.dependency-cruiser.json), run by `npm run lint` after eslint.
  {
    files: ['scripts/**/*.ts', 'scripts/*.mjs', 'bench/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['eslint.config.js', 'scripts/*.mjs', 'bin/*.js', 'bench/lib/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['scripts/*.mjs', 'bin/*.js', 'bench/lib/*.mjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        performance: 'readonly',
        URL: 'readonly',
        console: 'readonly',
        fetch: 'readonly',
        setTimeout: 'readonly',
      },
    },
  },
);
