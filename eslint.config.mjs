// Lint: typescript-eslint's recommended rules over the broker and the kit (CI runs `npm run lint`).
// Layout belongs to prettier (.prettierrc.json, `npm run format`; CI runs `npm run format:check`);
// eslint-config-prettier, last, turns off every rule that would argue with it.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  // Generated code (the codec from Kafka's specs) and build output are not linted.
  {
    ignores: [
      '**/node_modules/**',
      'cdk.out/**',
      'broker/dist/**',
      'broker/bench/.build/**', // the bench's own compiled copy of src/
      'broker/bench/.scratch/**',
      'broker/.test-build/**', // the tests' compiled copy of src/ (test/support/child-build.ts)
      'broker/src/protocol/messages/**',
      'broker/test/.venv/**',
      'broker/test/java/**',
      '**/*.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // `_name` marks a deliberately unused binding; a caught error need not be named as used.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    // Plain CommonJS files (bin entry, jest configs, the reporter).
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Tests and the compat runner poke at decoded wire answers and client internals (kafkajs' own
    // record-batch codec): `any` and require() are the honest types there.
    files: ['broker/test/**', 'test/**', 'broker/compat/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
);
