#!/usr/bin/env node
// Writes every publishable tarball into release/ (ignored by git):
//   - the main package exactly as `npm publish` publishes it at release time: its files (no .node)
//     plus the optionalDependencies that `napi prepublish` adds, one exact-version entry per platform
//     package in package.json "napi.targets" (they are not committed: npm ci could not lock them
//     before they are published);
//   - one tarball per npm/<platform>/ package that holds a built binary (npm run build:artifacts,
//     or the CI artifacts), the WebAssembly package (npm/wasm32-wasi/) among them: its .wasm and
//     the napi-generated loaders and workers. A native platform whose npm/<platform>/ has no binary
//     takes the one `npm run build` left in the repository root (this machine's), packed from a
//     staged copy of npm/<platform>/ so the folder stays as committed (not with --all: the publish
//     job packs only what the workflow built);
//   - the model package (packages/model-multilingual, for search.mode 'hybrid'), its contents checked:
//     exactly the files it must ship, and model.bin with the sha256 model.json records.
// Checks first that all versions agree (root, npm/*, and the version embedded in binding.js).
//
// The model package is versioned on its own, not with `npm version` (scripts/version-sync.mjs): it is
// ~30 MB and changes rarely, so a release of the main package must not re-publish it. Its version only
// has to satisfy the main package's optional peer range (checked here); the release workflow publishes
// it when that version is not yet on the registry.
//
//   npm run pack:release            # prints what it wrote
//   npm run pack:release -- --all   # fail unless every platform has its binary (the publish job)
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { gunzipSync } from 'node:zlib';
import { dirname, join } from 'node:path';
import { binaryOf, capture, log, pkg, platformOf, root } from './lib/tools.mjs';
import { checkWasmManifest, WASM_FILES, WASM_PLATFORM } from './build-wasm.mjs';

export const releaseDir = join(root, 'release');
export const modelDir = join(root, 'packages', 'model-multilingual');
/** What the model package must ship, no more (js/semantic.js reads modelPath and model.bin). */
export const MODEL_FILES = ['LICENSE', 'NOTICE.md', 'README.md', 'index.d.ts', 'index.js', 'model.bin', 'model.json', 'package.json'];

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
    if (platform === WASM_PLATFORM) problems.push(...checkWasmManifest(p));
  }
  const loader = readFileSync(join(root, 'binding.js'), 'utf8');
  const embedded = [...loader.matchAll(/bindingPackageVersion !== '([^']+)'/g)].map((m) => m[1]);
  if (!embedded.length) problems.push('binding.js embeds no version check');
  const wrong = [...new Set(embedded.filter((v) => v !== p.version))];
  if (wrong.length) problems.push(`binding.js embeds version ${wrong.join(', ')}, package.json says ${p.version} (npm run version:sync)`);
  if (problems.length) throw new Error('release versions disagree:\n  ' + problems.join('\n  '));
}

/**
 * Whether `version` (x.y.z) is in a caret range `^a.b.c` (the only form the peer range uses; anything
 * else is an error rather than a guess). Caret: same first non-zero component, and >= the range.
 */
export function inCaretRange(version, range) {
  const m = /^\^(\d+)\.(\d+)\.(\d+)$/.exec(range);
  if (!m) throw new Error(`peer range ${JSON.stringify(range)}: expected the form ^x.y.z`);
  const v = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  if (!v) throw new Error(`version ${JSON.stringify(version)}: expected x.y.z`);
  const [a, b] = [m.slice(1).map(Number), v.slice(1).map(Number)];
  const fixed = a[0] > 0 ? 1 : a[1] > 0 ? 2 : 3; // leading components that must be equal
  for (let i = 0; i < fixed; i++) if (a[i] !== b[i]) return false;
  for (let i = fixed; i < 3; i++) if (b[i] !== a[i]) return b[i] > a[i];
  return true;
}

/** The model package's manifest, after checking its name and that the main package's optional peer range accepts it. */
export function checkModelPackage(p = pkg(), dir = modelDir) {
  const model = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const name = `${p.name}-model-multilingual`;
  const problems = [];
  if (model.name !== name) problems.push(`packages/model-multilingual is named ${model.name}, expected ${name}`);
  const range = p.peerDependencies?.[name];
  if (!range) problems.push(`package.json has no peerDependencies["${name}"]`);
  else if (!inCaretRange(model.version, range)) problems.push(`model package version ${model.version} is outside the main package's peer range ${range}`);
  if (p.peerDependenciesMeta?.[name]?.optional !== true) problems.push(`peerDependenciesMeta["${name}"].optional must be true`);
  if (problems.length) throw new Error('model package:\n  ' + problems.join('\n  '));
  return model;
}

/** The regular files of a .tgz as path → contents (npm's tarballs: ustar, one `package/` root). */
export function readTarGz(file) {
  const tar = gunzipSync(readFileSync(file));
  const files = new Map();
  for (let at = 0; at + 512 <= tar.length; ) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const text = (from, len) => header.subarray(from, from + len).toString('utf8').replace(/\0.*$/s, '');
    const prefix = text(345, 155);
    const name = (prefix ? prefix + '/' : '') + text(0, 100);
    const size = parseInt(text(124, 12).trim() || '0', 8);
    const type = text(156, 1);
    if (type === '0' || type === '') files.set(name, tar.subarray(at + 512, at + 512 + size));
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

/** Packs the model package into `dest` and checks the tarball itself: files, model.bin magic and sha256. */
export function packModel(dest, p = pkg(), dir = modelDir) {
  const model = checkModelPackage(p, dir);
  const packed = npmPack(dir, dest);
  const contents = readTarGz(join(dest, packed.filename));
  const shipped = [...contents.keys()].map((f) => f.replace(/^package\//, '')).sort();
  const missing = MODEL_FILES.filter((f) => !shipped.includes(f));
  const extra = shipped.filter((f) => !MODEL_FILES.includes(f));
  const fail = (why) => {
    throw new Error(`${packed.filename}: ${why}`);
  };
  if (missing.length || extra.length) fail(`ships ${shipped.join(', ')}; missing ${missing.join(', ') || '-'}, unexpected ${extra.join(', ') || '-'}`);
  const bin = contents.get('package/model.bin');
  if (bin.subarray(0, 8).toString('latin1') !== 'MNPSEMB1') fail('model.bin does not start with MNPSEMB1');
  const meta = JSON.parse(contents.get('package/model.json').toString('utf8'));
  const sha256 = createHash('sha256').update(bin).digest('hex');
  if (sha256 !== meta.sha256) fail(`model.bin sha256 ${sha256}, model.json says ${meta.sha256}`);
  const manifest = JSON.parse(contents.get('package/package.json').toString('utf8'));
  if (manifest.version !== model.version) fail(`version ${manifest.version}, packages/model-multilingual says ${model.version}`);
  return { file: packed.filename, size: packed.size, files: shipped.length, what: `model ${model.version}, model.bin sha256 ${sha256.slice(0, 12)}… as model.json says` };
}

function npmPack(dir, dest) {
  const out = capture('npm', ['pack', '--json', '--pack-destination', dest], { cwd: dir });
  return JSON.parse(out)[0];
}

/**
 * Where a platform package is packed from: npm/<platform>/ when it holds its binary; else, for a
 * native platform and with `allowRoot`, a copy of npm/<platform>/ under `stage` with the binary
 * `npm run build` wrote into the repository root (the loader's local-build spot), as
 * scripts/test-deploy.mjs does; undefined when neither has one.
 */
export function platformPackageSource(platform, binary, stage, { allowRoot = true, from = root } = {}) {
  const dir = join(from, 'npm', platform);
  if (existsSync(join(dir, binary))) return { dir, what: platform };
  const built = join(from, binary);
  if (!allowRoot || platform === WASM_PLATFORM || !existsSync(built)) return undefined;
  const staged = join(stage, 'platforms', platform);
  cpSync(dir, staged, { recursive: true });
  cpSync(built, join(staged, binary));
  return { dir: staged, what: `${platform}, ${binary} from the repository root (npm run build)` };
}

/** Writes the tarballs into `dest` (release/ by default; any .tgz already there is removed first). */
export function packRelease({ quiet = false, all = false, dest = releaseDir } = {}) {
  const p = pkg();
  checkVersions(p);
  if (all) {
    const missing = p.napi.targets.map(platformOf).filter((pl) => !existsSync(join(root, 'npm', pl, binaryOf(p.name, pl))));
    if (missing.length) throw new Error(`no binary in npm/ for ${missing.join(', ')}`);
  }
  mkdirSync(dest, { recursive: true });
  for (const f of readdirSync(dest)) if (f.endsWith('.tgz')) rmSync(join(dest, f));

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
    // What users install needs neither (and a tarball must not run our prepublish guard or dev scripts).
    delete manifest.scripts;
    delete manifest.devDependencies;
    writeFileSync(pj, JSON.stringify(manifest, null, 2) + '\n');
    const main = npmPack(join(stage, 'package'), dest);
    const files = main.files.map((f) => f.path);
    const nodes = files.filter((f) => f.endsWith('.node'));
    if (nodes.length) throw new Error(`main package would carry ${nodes.join(', ')}`);
    if (!files.includes('LICENSE')) throw new Error('main package lacks LICENSE');
    const written = [{ file: main.filename, size: main.size, files: files.length, what: `main, ${Object.keys(manifest.optionalDependencies).length} optionalDependencies` }];

    // Platform packages with a binary: in npm/<platform>/, else (native only) the repository root's.
    for (const t of p.napi.targets) {
      const platform = platformOf(t);
      const binary = binaryOf(p.name, platform);
      const source = platformPackageSource(platform, binary, stage, { allowRoot: !all });
      if (!source) {
        written.push({ file: `(skipped ${p.name}-${platform})`, what: 'no binary built here' });
        continue;
      }
      const sub = npmPack(source.dir, dest);
      const needed = platform === WASM_PLATFORM ? WASM_FILES : [binary];
      const lacking = needed.filter((file) => !sub.files.some((f) => f.path === file));
      if (lacking.length) throw new Error(`${sub.filename} lacks ${lacking.join(', ')}`);
      written.push({ file: sub.filename, size: sub.size, files: sub.files.length, what: source.what });
    }

    written.push(packModel(dest, p));
    if (!quiet) {
      log(`wrote ${dest}:`);
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
