// Lint rules, including the layering rule of STYLE.md §2: imports only go downward.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const layer = (files, forbidden, message, ignores = []) => ({
  files,
  ignores,
  rules: {
    'no-restricted-imports': [
      'error',
      { patterns: forbidden.map((group) => ({ group: [group], message })) },
    ],
  },
});

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.tracehook/**', 'coverage/**'] },
  js.configs.recommended,
  { languageOptions: { globals: { ...globals.node } } },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  // The dashboard's pages run in the browser (web/, built by Vite into dist/web).
  { files: ['web/src/**'], languageOptions: { globals: { ...globals.browser } } },
  layer(['src/engine/**'], ['**/gateway/**', '**/notify/**', '**/cli/**', '**/backends/**'], 'engine never imports gateway, notify, cli or backends'),
  layer(['src/store/**'], ['**/gateway/**', '**/notify/**', '**/engine/**', '**/cli/**', '**/backends/**'], 'store imports nothing from the app'),
  layer(['src/rpc/**'], ['**/gateway/**', '**/notify/**', '**/engine/**', '**/store/**', '**/cli/**', '**/backends/**'], 'rpc (the vocabulary) imports nothing from the app'),
  layer(['src/backends/**'], ['**/gateway/**', '**/notify/**', '**/cli/**'], 'backends never import gateway, notify or cli', ['src/backends/**/testing/**', 'src/backends/**/*.test.ts']),
  layer(['src/notify/**'], ['**/gateway/**', '**/cli/**'], 'notify never imports gateway or cli'),
);
