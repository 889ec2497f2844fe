// Lint runs in `npm test`: type-aware rules for promises nobody awaits and for code nothing uses.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      '.data/',
      '.tools/',
      'dist/',
      '.dist-*/',
      'coverage/',
      'src/generated/',
      'console/src/api/schema.d.ts',
      'console/dist/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'harness/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  // Workflow code replays: no assertion may hide a value that is not there.
  { files: ['workflows/**/*.ts'], rules: { '@typescript-eslint/no-non-null-assertion': 'error' } },
  { files: ['**/*.mjs', '**/*.cjs'], ...tseslint.configs.disableTypeChecked },
  { files: ['**/*.mjs'], languageOptions: { globals: globals.node } },
  // A preload for `node --require` (scripts/workflow-thread-preload.cjs) is CommonJS.
  {
    files: ['**/*.cjs'],
    languageOptions: { globals: globals.node, sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
