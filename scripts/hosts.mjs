#!/usr/bin/env node
// Host matrix: each supported @mastra/core is installed side by side in hosts/<version>/ from
// its committed lockfile, and this package is staged into each as if installed from npm, so
// that a test loading `mastra-native-processors` from a host folder runs against that host.
//
//   node scripts/hosts.mjs setup     install missing hosts (npm ci), then stage the package
//   node scripts/hosts.mjs stage     re-stage the package only (after a rebuild)
//   node scripts/hosts.mjs list      print the host versions
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const hostsDir = join(root, 'hosts');

export function hostVersions() {
  return readdirSync(hostsDir)
    .filter((name) => /^\d+\.\d+\.\d+$/.test(name))
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
}

/** npm ci in a host folder unless its node_modules matches the committed lockfile. */
function installHost(version) {
  const dir = join(hostsDir, version);
  const lock = readFileSync(join(dir, 'package-lock.json'), 'utf8');
  const stamp = join(dir, 'node_modules', '.installed-lock.json');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === lock) return false;
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: 'inherit' });
  writeFileSync(stamp, lock);
  return true;
}

/**
 * Copies what `npm pack` would ship (package.json "files") plus the built addon (native, and
 * WebAssembly when built) into
 * `<projectDir>/node_modules/<name>`, as an install would.
 */
export function stagePackageInto(projectDir) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const target = join(projectDir, 'node_modules', pkg.name);
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  cpSync(join(root, 'package.json'), join(target, 'package.json'));
  const entries = new Set(pkg.files.filter((f) => !f.includes('*')));
  // (and the WebAssembly build when there is one: npm run build:wasm, for npm run test:wasm)
  for (const name of readdirSync(root)) if (/\.node$|\.wasm$|\.wasi\.cjs$|^wasi-worker\.mjs$/.test(name)) entries.add(name);
  for (const entry of entries) {
    const source = join(root, entry.replace(/\/$/, ''));
    if (!existsSync(source)) continue;
    cpSync(source, join(target, entry.replace(/\/$/, '')), { recursive: statSync(source).isDirectory() });
  }
}

function main(command = 'setup') {
  if (command === 'list') {
    console.log(hostVersions().join('\n'));
    return;
  }
  if (command !== 'setup' && command !== 'stage') {
    console.error(`usage: node scripts/hosts.mjs setup|stage|list (got ${command})`);
    process.exit(2);
  }
  for (const version of hostVersions()) {
    if (command === 'setup' && installHost(version)) console.log(`hosts: installed @mastra/core ${version}`);
    stagePackageInto(join(hostsDir, version));
  }
  console.log(`hosts: package staged into ${hostVersions().join(', ')}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main(process.argv[2]);
