#!/usr/bin/env node
// Writes every publishable tarball into release/ (ignored by git):
//   - the main package exactly as `npm publish` publishes it at release time: its files (no .node)
//     plus the optionalDependencies that `napi prepublish` adds, one exact-version entry per platform
//     package in package.json "napi.targets" (they are not committed: npm ci could not lock them
//     before they are published);
//   - one tarball per npm/<platform>/ package that holds a built binary (npm run build:artifacts,
//     or the CI artifacts).
// Checks first that all versions agree (root, npm/*, and the version embedded in binding.js).
//
//   npm run pack:release            # prints what it wrote
//   npm run pack:release -- --all   # fail unless every platform has its binary (the publish job)
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { capture, log, pkg, platformOf, root } from './lib/tools.mjs';

export const releaseDir = join(root, 'release');

/** optionalDependencies as `napi prepublish` writes them: every target's platform package at the root version. */
export function optionalDependencies(p = pkg()) {
  const deps = {};
  for (const t of p.napi.targets) deps[`${p.name}-${platformOf(t)}`] = p.version;
  return deps;
}

/** Errors if npm/*, the embedded loader version or the platform folders disagree with package.json. */
export function checkVersions(p = pkg()) {
  const problems = [];
  for (const t of p.napi.targets) {
    const platform = platformOf(t);
    const file = join(root, 'npm', platform, 'package.json');
    if (!existsSync(file)) {
      problems.push(`npm/${platform}/package.json is missing (npx napi create-npm-dirs)`);
      continue;
    }
    const sub = JSON.parse(readFileSync(file, 'utf8'));
    if (sub.name !== `${p.name}-${platform}`) problems.push(`npm/${platform}: name ${sub.name}`);
    if (sub.version !== p.version) problems.push(`npm/${platform}: version ${sub.version}, package.json says ${p.version} (npm run version:sync)`);
  }
  const loader = readFileSync(join(root, 'binding.js'), 'utf8');
  const embedded = [...loader.matchAll(/bindingPackageVersion !== '([^']+)'/g)].map((m) => m[1]);
  if (!embedded.length) problems.push('binding.js embeds no version check');
  const wrong = [...new Set(embedded.filter((v) => v !== p.version))];
  if (wrong.length) problems.push(`binding.js embeds version ${wrong.join(', ')}, package.json says ${p.version} (npm run version:sync)`);
  if (problems.length) throw new Error('release versions disagree:\n  ' + problems.join('\n  '));
}

function npmPack(dir, dest) {
  const out = capture('npm', ['pack', '--json', '--pack-destination', dest], { cwd: dir });
  return JSON.parse(out)[0];
}

export function packRelease({ quiet = false, all = false } = {}) {
  const p = pkg();
  checkVersions(p);
  if (all) {
    const missing = p.napi.targets.map(platformOf).filter((pl) => !existsSync(join(root, 'npm', pl, `${p.name}.${pl}.node`)));
    if (missing.length) throw new Error(`no binary in npm/ for ${missing.join(', ')}`);
  }
  mkdirSync(releaseDir, { recursive: true });
  for (const f of readdirSync(releaseDir)) if (f.endsWith('.tgz')) rmSync(join(releaseDir, f));

  // Main package: pack the repo as npm would, then re-pack it with the release-time optionalDependencies.
  const stage = mkdtempSync(join(tmpdir(), 'mnp-pack-'));
  try {
    // (Copies the files `npm pack` would take instead of unpacking a tarball: no tar needed on Windows.)
    const dry = JSON.parse(capture('npm', ['pack', '--dry-run', '--json'], { cwd: root }))[0];
    for (const f of dry.files) {
      mkdirSync(dirname(join(stage, 'package', f.path)), { recursive: true });
      cpSync(join(root, f.path), join(stage, 'package', f.path));
    }
    const pj = join(stage, 'package', 'package.json');
    const manifest = JSON.parse(readFileSync(pj, 'utf8'));
    manifest.optionalDependencies = optionalDependencies(p);
    writeFileSync(pj, JSON.stringify(manifest, null, 2) + '\n');
    const main = npmPack(join(stage, 'package'), releaseDir);
    const files = main.files.map((f) => f.path);
    const nodes = files.filter((f) => f.endsWith('.node'));
    if (nodes.length) throw new Error(`main package would carry ${nodes.join(', ')}`);
    if (!files.includes('LICENSE')) throw new Error('main package lacks LICENSE');
    const written = [{ file: main.filename, size: main.size, files: files.length, what: `main, ${Object.keys(manifest.optionalDependencies).length} optionalDependencies` }];

    // Platform packages with a binary.
    for (const t of p.napi.targets) {
      const platform = platformOf(t);
      const dir = join(root, 'npm', platform);
      const binary = `${p.name}.${platform}.node`;
      if (!existsSync(join(dir, binary))) {
        written.push({ file: `(skipped ${p.name}-${platform})`, what: 'no binary built here' });
        continue;
      }
      const sub = npmPack(dir, releaseDir);
      if (!sub.files.some((f) => f.path === binary)) throw new Error(`${sub.filename} lacks ${binary}`);
      written.push({ file: sub.filename, size: sub.size, files: sub.files.length, what: platform });
    }
    if (!quiet) {
      log(`wrote ${releaseDir}:`);
      for (const w of written) log(`  ${w.file}${w.size ? ` (${(w.size / 1024).toFixed(0)} kB, ${w.files} files)` : ''} — ${w.what}`);
    }
    return written;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    packRelease({ all: process.argv.includes('--all') });
  } catch (e) {
    console.error(`pack:release failed: ${e.message}`);
    process.exit(1);
  }
}
