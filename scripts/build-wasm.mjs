#!/usr/bin/env node
// The WebAssembly build (issue 28): the addon for wasm32-wasip1-threads, the napi-rs convention's
// last-resort platform. The generated loader (binding.js) takes it when no native binary loads, or
// first with NAPI_RS_FORCE_WASI=true ('error': only it). It lands twice:
//   - at the repository root (gitignored; a later native `napi build` removes it again), where
//     the loader's local candidate finds it, for
//     `npm run test:wasm`;
//   - in target/wasm/package/, the `mastra-native-processors-wasm32-wasi` package as the release
//     would publish it (its runtime, @napi-rs/wasm-runtime, a dependency of that package only).
//     Not yet in npm/ nor in the release's optionalDependencies: the release integration is the
//     next part of issue 28.
//
//   npm run build:wasm
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureRustTargets, log, pkg, root, run } from './lib/tools.mjs';

const TARGET = 'wasm32-wasip1-threads';
const NAME = 'mastra-native-processors';
const FILES = [`${NAME}.wasi.cjs`, `${NAME}.wasm32-wasi.wasm`, 'wasi-worker.mjs'];

ensureRustTargets([TARGET]);
const out = join(root, 'target', 'wasm', 'out');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const t0 = Date.now();
// --no-js and --dts into the staging folder: the committed binding.js/binding.d.ts stay untouched.
run(join(root, 'node_modules', '.bin', 'napi'), ['build', '--platform', '--release', '--target', TARGET, '--no-js', '--dts', 'binding.d.ts', '-o', out], {
  env: { ...process.env, CARGO_TARGET_DIR: join(root, 'target', 'wasm') },
});
const main = pkg();
const dir = join(root, 'target', 'wasm', 'package');
mkdirSync(dir, { recursive: true });
for (const file of FILES) {
  copyFileSync(join(out, file), join(root, file));
  copyFileSync(join(out, file), join(dir, file));
}
const devDeps = main.devDependencies ?? {};
writeFileSync(
  join(dir, 'package.json'),
  JSON.stringify(
    {
      name: `${NAME}-wasm32-wasi`,
      version: main.version,
      cpu: ['wasm32'],
      main: `${NAME}.wasi.cjs`,
      files: FILES,
      description: main.description,
      license: main.license,
      engines: { node: '>=20.19.0' },
      dependencies: { '@napi-rs/wasm-runtime': devDeps['@napi-rs/wasm-runtime'] },
    },
    null,
    2,
  ) + '\n',
);
const size = readFileSync(join(dir, `${NAME}.wasm32-wasi.wasm`)).length;
log(`wasm32-wasi: ${(size / 1e6).toFixed(2)} MB in ${((Date.now() - t0) / 1000).toFixed(0)} s -> the repository root and target/wasm/package/`);
