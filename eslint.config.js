// ESLint for the page, the tests and the scripts (TypeScript and ES modules); formatting is prettier's
// (.prettierrc.json), so eslint-config-prettier turns the stylistic rules off.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'build*/**', 'node_modules/**', 'web/src/wasm/*.js', 'test-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,mjs,js}'],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: {
        window: 'readonly',
        document: 'readonly',
        location: 'readonly',
        history: 'readonly',
        navigator: 'readonly',
        performance: 'readonly',
        console: 'readonly',
        self: 'readonly',
        globalThis: 'readonly',
        fetch: 'readonly',
        WebAssembly: 'readonly',
        Worker: 'readonly',
        Blob: 'readonly',
        File: 'readonly',
        URL: 'readonly',
        DataTransfer: 'readonly',
        MessageEvent: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        Event: 'readonly',
        process: 'readonly',
        Buffer: 'readonly',
        PerformanceObserver: 'readonly',
        requestAnimationFrame: 'readonly',
      },
    },
    rules: {
      // Tests parse JSON fixtures and the module's raw values: `any` is deliberate there.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  prettier,
);
