#!/usr/bin/env node
// The second CI lane: the unit and lab suites and the core e2e suites on the Node version the image
// ships (docker/Dockerfile's `FROM node:<version>`), whatever Node runs the first lane. That Node
// comes from the npm registry's binary package (node-<platform>-<arch>), kept in a cache folder,
// so a second run downloads nothing. Run after `npm run build` (the e2e suites start dist/).
const { execFileSync, spawnSync } = require('node:child_process');
const { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } = require('node:fs');
const { homedir, tmpdir } = require('node:os');
const { join } = require('node:path');

const root = join(__dirname, '..');
/** The e2e suites that cover each surface once in one process and once distributed. */
const CORE_E2E = [
  'test/e2e/api.in-process.e2e-spec.ts',
  'test/e2e/api.bullmq.e2e-spec.ts',
  'test/e2e/lists.in-process.e2e-spec.ts',
  'test/e2e/webhooks.in-process.e2e-spec.ts',
  'test/e2e/migrate.e2e-spec.ts',
  'test/e2e/front-door.e2e-spec.ts',
];

/** The one Node version every stage of the image is built FROM. */
function imageNodeVersion() {
  const dockerfile = readFileSync(join(root, 'docker', 'Dockerfile'), 'utf8');
  const versions = new Set([...dockerfile.matchAll(/^FROM node:(\d+\.\d+\.\d+)\b/gm)].map((match) => match[1]));
  if (versions.size !== 1)
    throw new Error(`docker/Dockerfile must build every stage FROM one pinned node:<x.y.z> (found ${[...versions]})`);
  return [...versions][0];
}

/** The path of that Node's binary, from the cache or fetched into it. */
function nodeBinary(version) {
  const cache = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'mailguard', `node-v${version}`);
  const binary = join(cache, 'bin', 'node');
  if (existsSync(binary)) return binary;
  const pkg = `node-${process.platform}-${process.arch}@${version}`;
  process.stdout.write(`image-node lane: fetching ${pkg} from the npm registry\n`);
  const scratch = mkdtempSync(join(tmpdir(), 'mailguard-node-'));
  try {
    const tarball = execFileSync('npm', ['pack', pkg, '--silent', '--pack-destination', scratch], {
      encoding: 'utf8',
    }).trim();
    execFileSync('tar', ['-xzf', join(scratch, tarball.split('\n').pop()), '-C', scratch]);
    mkdirSync(join(cache, '..'), { recursive: true });
    // Renamed whole, so an interrupted fetch never leaves a half cache behind.
    renameSync(join(scratch, 'package'), cache);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return binary;
}

function jest(node, args) {
  const run = spawnSync(node, [join(root, 'node_modules', 'jest', 'bin', 'jest.js'), '--ci', ...args], {
    cwd: root,
    stdio: 'inherit',
  });
  if (run.status !== 0) process.exit(run.status ?? 1);
}

const version = imageNodeVersion();
const node = nodeBinary(version);
const actual = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
if (actual !== `v${version}`) throw new Error(`${node} is ${actual}, not v${version}`);
process.stdout.write(`image-node lane: unit, lab and core e2e suites on Node ${actual} (the image's)\n`);
jest(node, ['--selectProjects', 'unit', 'lab']);
jest(node, [...CORE_E2E, '--selectProjects', 'e2e']);
