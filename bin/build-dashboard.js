#!/usr/bin/env node
// Bundles the customer dashboard (apps/dashboard, docs/dashboard.md) into dist/dashboard/: one script, one style
// sheet and index.html, all served from the gateway's own origin (script-src 'self'). Prints the size as
// served and fails above the budget, so a heavy dependency cannot slip in unnoticed.
const { buildSync } = require('esbuild');
const { cpSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const { gzipSync } = require('node:zlib');

const BUDGET = 80 * 1024;
const root = join(__dirname, '..');
const outdir = join(root, 'dist', 'dashboard');
buildSync({
  entryPoints: [join(root, 'apps', 'dashboard', 'src', 'main.tsx')],
  outdir,
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2020',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
});
cpSync(join(root, 'apps', 'dashboard', 'public'), outdir, { recursive: true });
const sizes = ['main.js', 'main.css'].map((name) => {
  const body = readFileSync(join(outdir, name));
  return { name, minified: body.length, gzipped: gzipSync(body, { level: 9 }).length };
});
const total = sizes.reduce((sum, file) => sum + file.gzipped, 0);
for (const file of sizes)
  process.stdout.write(`dashboard ${file.name}: ${file.minified} bytes minified, ${file.gzipped} bytes gzipped\n`);
process.stdout.write(`dashboard total: ${(total / 1024).toFixed(1)} KB gzipped (budget ${BUDGET / 1024} KB)\n`);
if (total > BUDGET) {
  process.stderr.write(`dashboard bundle is over its budget of ${BUDGET / 1024} KB gzipped\n`);
  process.exit(1);
}
