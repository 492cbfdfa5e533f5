#!/usr/bin/env node
// Reproducible release builds of the native addon for Linux, from any x64 Linux machine with rustup:
// cargo-zigbuild + zig (PyPI, into .tools/zig) link every Linux target with zig's libc, the gnu
// targets pinned to glibc 2.17 so they load on every maintained glibc distro. Each binary lands in its
// npm/<platform>/ package folder. The WebAssembly package (wasm32-wasip1-threads, npm/wasm32-wasi/)
// is built too, by scripts/build-wasm.mjs (no zig: rustc and napi-rs's emnapi link it).
//
//   npm run build:artifacts                      # the four Linux targets and the WebAssembly package
//   npm run build:artifacts -- --darwin          # + compile/link check of both macOS targets with zig
//   npm run build:artifacts -- --no-wasm         # without the WebAssembly package
//   npm run build:artifacts -- --target aarch64-unknown-linux-musl
//   npm run build:artifacts -- --target wasm32-wasip1-threads   # only the WebAssembly package
//
// Windows (MSVC, x64 and arm64) binaries are built on Windows runners only (.github/workflows/release.yml).
import { copyFileSync, existsSync, mkdirSync, writeFileSync, chmodSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ensureRustTargets, ensureVenv, log, platformOf, root, run, toolsDir } from './lib/tools.mjs';
import { glibcRequirement } from './lib/elf.mjs';
import { buildWasm, WASM_TARGET } from './build-wasm.mjs';

export const LINUX_TARGETS = [
  'x86_64-unknown-linux-gnu.2.17',
  'aarch64-unknown-linux-gnu.2.17',
  'x86_64-unknown-linux-musl',
  'aarch64-unknown-linux-musl',
];
export const DARWIN_TARGETS = ['x86_64-apple-darwin', 'aarch64-apple-darwin'];
export const ZIG_REQUIREMENTS = ['cargo-zigbuild==0.24.1', 'ziglang==0.17.1'];

function parseArgs(argv) {
  const targets = [];
  let darwin = false;
  let wasm = true;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--darwin') darwin = true;
    else if (argv[i] === '--no-wasm') wasm = false;
    else if (argv[i] === '--target') targets.push(argv[++i]);
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  return { targets: targets.length ? targets : [...LINUX_TARGETS, ...(darwin ? DARWIN_TARGETS : []), ...(wasm ? [WASM_TARGET] : [])] };
}

/** PATH with zig (a shim around the PyPI ziglang module) and cargo-zigbuild first. */
export function zigEnv() {
  const venvBin = ensureVenv('zig', ZIG_REQUIREMENTS);
  const shimDir = join(toolsDir, 'zig-shim');
  mkdirSync(shimDir, { recursive: true });
  const shim = join(shimDir, 'zig');
  writeFileSync(shim, `#!/bin/sh\nexec "${join(venvBin, 'python3')}" -m ziglang "$@"\n`);
  chmodSync(shim, 0o755);
  return { ...process.env, PATH: `${shimDir}:${venvBin}:${process.env.PATH}` };
}

function main() {
  const { targets: all } = parseArgs(process.argv.slice(2));
  const results = [];
  const targets = all.filter((t) => t !== WASM_TARGET);
  if (targets.length) crossBuild(targets, results);
  if (all.includes(WASM_TARGET)) results.push(buildWasm());
  log('built:');
  for (const r of results) log('  ' + r);
}

function crossBuild(targets, results) {
  ensureRustTargets([...new Set(targets.map((t) => t.split('.')[0]))]);
  const env = { ...zigEnv(), CARGO_TARGET_DIR: join(root, 'target', 'cross') };
  const napi = join(root, 'node_modules', '.bin', 'napi');
  for (const target of targets) {
    const platform = platformOf(target);
    const out = join(root, 'target', 'cross', 'out', platform);
    mkdirSync(out, { recursive: true });
    const t0 = Date.now();
    // --no-js and --dts into the staging folder: the committed binding.js/binding.d.ts stay untouched.
    run(napi, ['build', '--platform', '--release', '--cross-compile', '--target', target,
      '--target-dir', env.CARGO_TARGET_DIR, '--output-dir', out, '--no-js', '--dts', 'index.d.ts'], { cwd: root, env });
    const file = `mastra-native-processors.${platform}.node`;
    const built = join(out, file);
    if (!existsSync(built)) throw new Error(`napi build did not produce ${built}`);
    const seconds = ((Date.now() - t0) / 1000).toFixed(0);
    if (platform.startsWith('darwin')) {
      // Linked by zig without the macOS SDK: proves the crate compiles and links for macOS, but the
      // published macOS binaries come from macOS runners (unsigned zig links are not shipped).
      results.push(`${platform}: compiled and linked (${statSync(built).size} bytes, ${seconds} s) — not copied to npm/`);
      continue;
    }
    const dest = join(root, 'npm', platform, file);
    copyFileSync(built, dest);
    let note = '';
    if (platform.endsWith('-gnu')) {
      const req = glibcRequirement(dest);
      if (compareVersions(req, '2.17') > 0) throw new Error(`${file} needs GLIBC_${req}, more than 2.17`);
      note = `, needs GLIBC_${req}`;
    }
    results.push(`${platform}: npm/${platform}/${file} (${statSync(dest).size} bytes${note}, ${seconds} s)`);
  }
}

export function compareVersions(a, b) {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d) return Math.sign(d);
  }
  return 0;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    main();
  } catch (e) {
    console.error(`build:artifacts failed: ${e.message}`);
    process.exit(1);
  }
}
