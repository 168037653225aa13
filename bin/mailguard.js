#!/usr/bin/env node
// `npx mailguard verify|find|domain|mcp …`: runs the compiled CLI, building it first on a fresh checkout.
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { execSync } = require('node:child_process');

const root = join(__dirname, '..');
const main = join(root, 'dist', 'apps', 'cli', 'src', 'main.js');
if (!existsSync(main)) {
  process.stderr.write('mailguard: building the CLI once (npm run build)…\n');
  execSync('npm run build', { cwd: root, stdio: ['ignore', process.stderr, process.stderr] });
}
require(main);
