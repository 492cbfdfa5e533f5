#!/usr/bin/env node
// The WebAssembly build (issue 28): the addon for wasm32-wasip1-threads, the napi-rs convention's
// last-resort platform. The generated loader (binding.js) takes it when no native binary loads, or
// first with NAPI_RS_FORCE_WASI=true ('error': only it). It lands twice:
//   - at the repository root (gitignored; a later native `napi build` removes it again), where
//     the loader's local candidate finds it, for `npm run test:wasm`;
//   - in npm/wasm32-wasi/, the `mastra-native-processors-wasm32-wasi` package the release publishes
//     (its package.json is committed; its runtime, @napi-rs/wasm-runtime and @emnapi/*, are
//     dependencies of that package only, pinned to the versions package-lock.json tests).
// `npm run build:artifacts` runs it too (and the release workflow's wasm job, through
// `build-artifacts.mjs --target wasm32-wasip1-threads`).
//
//   npm run build:wasm
import { copyFileSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ensureRustTargets, log, pkg, root, run } from './lib/tools.mjs';

export const WASM_TARGET = 'wasm32-wasip1-threads';
export const WASM_PLATFORM = 'wasm32-wasi';
const NAME = 'mastra-native-processors';
/** What the package ships: the files `napi prepublish` requires of a threaded WASI package. */
export const WASM_FILES = [
  `${NAME}.wasm32-wasi.wasm`,
  `${NAME}.wasi.cjs`,
  `${NAME}.wasi.d.cts`,
  `${NAME}.wasi-browser.js`,
  'wasi-worker.mjs',
  'wasi-worker-browser.mjs',
];
/** What the loader needs beside binding.js to take the local WebAssembly build (Node.js). */
const ROOT_FILES = [`${NAME}.wasi.cjs`, `${NAME}.wasm32-wasi.wasm`, 'wasi-worker.mjs'];
/** The WASI runtime the package depends on: exactly the versions this repository tests with. */
export const WASM_RUNTIME = ['@napi-rs/wasm-runtime', '@emnapi/core', '@emnapi/runtime'];

/** Problems with npm/wasm32-wasi/package.json: its files and runtime versions (empty when right). */
export function checkWasmManifest(p = pkg()) {
  const dir = join(root, 'npm', WASM_PLATFORM);
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
  const problems = [];
  if (JSON.stringify(manifest.files) !== JSON.stringify(WASM_FILES)) problems.push(`npm/${WASM_PLATFORM}: files ${JSON.stringify(manifest.files)}, expected ${JSON.stringify(WASM_FILES)}`);
  for (const dep of WASM_RUNTIME) {
    const locked = lock.packages?.[`node_modules/${dep}`]?.version;
    const want = manifest.dependencies?.[dep];
    if (want !== locked) problems.push(`npm/${WASM_PLATFORM}: dependency ${dep}@${want}, package-lock.json has ${locked}`);
    if (p.devDependencies?.[dep] !== locked) problems.push(`package.json devDependencies ${dep}@${p.devDependencies?.[dep]}, package-lock.json has ${locked}`);
  }
  return problems;
}

/** Builds the WebAssembly addon into npm/wasm32-wasi/ and the repository root; returns a summary. */
export function buildWasm() {
  const problems = checkWasmManifest();
  if (problems.length) throw new Error(problems.join('\n'));
  ensureRustTargets([WASM_TARGET]);
  const out = join(root, 'target', 'wasm', 'out');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const t0 = Date.now();
  // --no-js and --dts into the staging folder: the committed binding.js/binding.d.ts stay untouched.
  run(join(root, 'node_modules', '.bin', 'napi'), ['build', '--platform', '--release', '--target', WASM_TARGET, '--no-js', '--dts', 'binding.d.ts', '-o', out], {
    env: { ...process.env, CARGO_TARGET_DIR: join(root, 'target', 'wasm') },
  });
  const dir = join(root, 'npm', WASM_PLATFORM);
  for (const file of WASM_FILES) copyFileSync(join(out, file), join(dir, file));
  for (const file of ROOT_FILES) copyFileSync(join(out, file), join(root, file));
  const size = statSync(join(dir, WASM_FILES[0])).size;
  const seconds = ((Date.now() - t0) / 1000).toFixed(0);
  return `${WASM_PLATFORM}: npm/${WASM_PLATFORM}/${WASM_FILES[0]} (${size} bytes, ${(size / 1e6).toFixed(2)} MB, ${seconds} s; also at the repository root)`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    log(buildWasm());
  } catch (e) {
    console.error(`build:wasm failed: ${e.message}`);
    process.exit(1);
  }
}
