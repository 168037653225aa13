#!/usr/bin/env node
// Bundles the browser SDK (apps/widget) into dist/widget/widget.js: one minified file, no runtime
// dependencies, for browsers of the last few years; the demo page goes beside it. `--size` prints
// the bundle's size as served (gzip).
const { buildSync } = require('esbuild');
const { cpSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const { gzipSync } = require('node:zlib');

const root = join(__dirname, '..');
const outfile = join(root, 'dist', 'widget', 'widget.js');
buildSync({
  entryPoints: [join(root, 'apps', 'widget', 'src', 'index.ts')],
  outfile,
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2020',
  legalComments: 'none',
});
cpSync(join(root, 'apps', 'widget', 'demo'), join(root, 'dist', 'widget', 'demo'), { recursive: true });
const code = readFileSync(outfile);
if (process.argv.includes('--size')) {
  process.stdout.write(
    `widget.js: ${code.length} bytes minified, ${gzipSync(code, { level: 9 }).length} bytes gzipped\n`,
  );
}
