import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { readdirSync } from 'node:fs';

/**
 * The layers of libs/, from the bottom: a library imports from its own layer and those below it,
 * never from one above, nor from apps/. foundation: configuration, logging, error codes. checks:
 * the verification rules, framework-free (docs/architecture.md). platform: Postgres, Redis, queues,
 * cache, metrics, limits, health. product: credits, keys, lists, finder, widget, MCP, retention,
 * the pipeline's stages. composition: the Nest modules that put a process together.
 */
const LAYERS = ['foundation', 'checks', 'platform', 'product', 'composition'];
const folders = (dir) =>
  readdirSync(new URL(dir, import.meta.url), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
const unplaced = folders('./libs/').filter((layer) => !LAYERS.includes(layer));
if (unplaced.length > 0) throw new Error(`eslint.config.mjs: place libs/${unplaced.join(', libs/')} in LAYERS`);

/** One no-restricted-imports block per layer: the aliases and folders of every layer above it, and apps/. */
const layerRules = LAYERS.map((layer, index) => {
  const above = LAYERS.slice(index + 1);
  const names = above.flatMap((upper) => folders(`./libs/${upper}/`));
  const message = `libs/${layer} may import only from its own layer and those below it (${LAYERS.slice(0, index + 1).join(' < ')}): see LAYERS in eslint.config.mjs`;
  const folderGlobs = above.flatMap((upper) => [`**/${upper}/*/src`, `**/${upper}/*/src/**`]);
  const patterns = [{ group: ['**/apps/**', ...folderGlobs], message }];
  if (names.length > 0) patterns.push({ regex: `^@mailguard/(${names.join('|')})(/.*)?$`, message });
  return { files: [`libs/${layer}/**/*.ts`], rules: { 'no-restricted-imports': ['error', { patterns }] } };
});

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'data/**', 'artifacts/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-unsafe-function-type': 'off',
      'no-control-regex': 'off',
      eqeqeq: ['error', 'always'],
      'no-console': 'error',
    },
  },
  {
    // The browser SDK and its demo page: browser globals, and the console is how a widget tells the site's developers.
    files: ['apps/widget/**'],
    languageOptions: { globals: { ...globals.browser, Guard: 'readonly' } },
    rules: { 'no-console': 'off' },
  },
  {
    // The customer dashboard: browser code, bundled by bin/build-dashboard.js.
    files: ['apps/dashboard/**'],
    languageOptions: { globals: { ...globals.browser } },
  },
  ...layerRules,
  {
    files: ['**/*.js', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
