// The clear error when no native binary can be loaded (js/native.js over the generated binding.js).
// A missing binary is simulated in child processes: a temporary copy of the package without any
// .node file (as after `npm install --omit=optional`), a faked unsupported platform, and
// NAPI_RS_NATIVE_LIBRARY_PATH pointing nowhere.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..');
const PLATFORMS = [
  'linux-x64-gnu',
  'linux-arm64-gnu',
  'linux-x64-musl',
  'linux-arm64-musl',
  'darwin-x64',
  'darwin-arm64',
  'win32-x64-msvc',
  'win32-arm64-msvc',
];
// The release also declares the WebAssembly build (installed only with npm's --cpu=wasm32).
const WASM = 'mastra-native-processors-wasm32-wasi';
const { nativeLoadError, SUPPORTED_PLATFORMS, detectLibc } = require('../../js/native-error.js');

let pkgDir: string;

beforeAll(() => {
  // The package as published minus its optional platform dependency: no .node anywhere.
  pkgDir = mkdtempSync(join(tmpdir(), 'mnp-no-binary-'));
  for (const f of ['index.js', 'index.mjs', 'index.d.ts', 'binding.js']) cpSync(join(root, f), join(pkgDir, f));
  // The manifest as released: with the platform packages as optionalDependencies.
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  manifest.optionalDependencies = Object.fromEntries([...PLATFORMS.map((p) => `mastra-native-processors-${p}`), WASM].map((name) => [name, manifest.version]));
  writeFileSync(join(pkgDir, 'package.json'), JSON.stringify(manifest, null, 2));
  cpSync(join(root, 'js'), join(pkgDir, 'js'), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(pkgDir, 'node_modules'), 'dir');
  writeFileSync(
    join(pkgDir, 'fake-platform.cjs'),
    `const [os, arch] = process.env.FAKE_PLATFORM.split('-');
     Object.defineProperty(process, 'platform', { value: os });
     Object.defineProperty(process, 'arch', { value: arch });`,
  );
  expect(readdirSync(pkgDir, { recursive: true }).filter((f) => String(f).endsWith('.node') && !String(f).startsWith('node_modules'))).toEqual([]);
});

afterAll(() => {
  if (pkgDir) rmSync(pkgDir, { recursive: true, force: true });
});

type Outcome = { loaded?: string[]; message?: string; code?: string; cause?: string; causeCause?: string };

function load(cwd: string, env: Record<string, string> = {}, preload: string[] = []): Outcome {
  const report = `(e) => console.log(JSON.stringify({ message: e.message, code: e.code, cause: e.cause && e.cause.message, causeCause: e.cause && e.cause.cause && e.cause.cause.message }))`;
  const script = `try { console.log(JSON.stringify({ loaded: Object.keys(require('./index.js')).sort() })) } catch (e) { (${report})(e) }`;
  const clean = { ...process.env };
  delete clean.NAPI_RS_NATIVE_LIBRARY_PATH;
  const r = spawnSync(process.execPath, [...preload, '-e', script], { cwd, encoding: 'utf8', timeout: 60_000, env: { ...clean, ...env } });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

describe('native loader', () => {
  it('loads the addon when the binary is there', () => {
    expect(load(root).loaded).toEqual(['SkillSearchProcessor', 'ToolCallFilter', 'ToolSearchProcessor', 'memoryStore', 'redisEmbeddingCache', 'redisLearnStore', 'redisStore']);
  });

  it('missing binary on a supported platform: names it, the package to reinstall, and the fixes', () => {
    const libc = process.platform === 'linux' ? ` (${detectLibc()})` : '';
    const here = SUPPORTED_PLATFORMS.find(
      (p: any) => p.os === process.platform && p.arch === process.arch && (p.libc === null || p.libc === detectLibc()),
    );
    const o = load(pkgDir);
    expect(o.loaded).toBeUndefined();
    expect(o.code).toBe('MASTRA_NATIVE_BINDING_NOT_FOUND');
    expect(o.message).toContain(`(${process.platform} ${process.arch}${libc}, Node.js ${process.versions.node}) could not be loaded`);
    expect(o.message).toContain(`optional dependency mastra-native-processors-${here.platform}`);
    expect(o.message).toContain('--omit=optional');
    expect(o.message).toContain('npm run build');
    expect(o.message).toContain('Load attempts:');
    // napi's own error and its load attempts are kept as the cause chain.
    expect(o.cause).toContain('Cannot find native binding');
    expect(o.causeCause).toBeTruthy();
  });

  it('a copy packed without its platform packages says so, and lists no WebAssembly attempts', () => {
    const packedBare = mkdtempSync(join(tmpdir(), 'mnp-packed-bare-'));
    try {
      cpSync(pkgDir, packedBare, { recursive: true, verbatimSymlinks: true });
      const manifest = JSON.parse(readFileSync(join(packedBare, 'package.json'), 'utf8'));
      delete manifest.optionalDependencies;
      writeFileSync(join(packedBare, 'package.json'), JSON.stringify(manifest));
      const o = load(packedBare);
      expect(o.code).toBe('MASTRA_NATIVE_BINDING_NOT_FOUND');
      expect(o.message).toContain('this copy of mastra-native-processors was packed without its platform packages');
      expect(o.message).toContain('npm run pack:release');
      expect(o.message).not.toContain('--omit=optional');
      expect(o.message).not.toMatch(/wasm32-wasi|\.wasi/);
      // The released copy (above) declares the WebAssembly package: its attempt is listed.
      expect(load(pkgDir).message).toContain(`Cannot find module '${WASM}'`);
    } finally {
      rmSync(packedBare, { recursive: true, force: true });
    }
    // With a wasm package declared, its attempts are kept.
    const withWasm = nativeLoadError(Object.assign(new Error('napi'), { cause: new Error("Cannot find module 'mastra-native-processors-wasm32-wasi'") }), {
      platform: 'linux', arch: 'x64', libc: 'glibc', nodeVersion: '22.20.0', overridePath: '',
      declaredPackages: ['mastra-native-processors-linux-x64-gnu', 'mastra-native-processors-wasm32-wasi'],
    });
    expect(withWasm.message).toContain("Cannot find module 'mastra-native-processors-wasm32-wasi'");
    expect(withWasm.message).toContain('--omit=optional');
  });

  it('an ES-module bundle without require (esbuild --format=esm): says to keep the package external, and the documented banner works', () => {
    const bundler = join(root, 'node_modules', '.bin', 'esbuild');
    const work = mkdtempSync(join(tmpdir(), 'mnp-esbuild-'));
    try {
      mkdirSync(join(work, 'src', 'node_modules'), { recursive: true });
      symlinkSync(root, join(work, 'src', 'node_modules', 'mastra-native-processors'), 'dir');
      writeFileSync(
        join(work, 'src', 'app.mjs'),
        `import { ToolSearchProcessor } from 'mastra-native-processors';
         import { createTool } from '@mastra/core/tools';
         const p = new ToolSearchProcessor({ tools: { get_weather: createTool({ id: 'get_weather', description: 'Weather for a city', execute: async () => 1 }) } });
         const step = await p.processInputStep({ tools: {}, messageList: { addSystem() {} }, messages: [], stepNumber: 0 });
         console.log(JSON.stringify((await step.tools.search_tools.execute({ query: 'weather' }, {})).results.map((r) => r.name)));`,
      );
      const banner = "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";
      for (const [name, extra] of [['plain', []], ['banner', [`--banner:js=${banner}`]]] as const) {
        const out = join(work, name);
        const built = spawnSync(bundler, [join(work, 'src', 'app.mjs'), '--bundle', '--platform=node', '--format=esm', `--outdir=${out}`, '--loader:.node=copy', '--external:@mastra/*', '--external:zod', ...extra], { encoding: 'utf8' });
        expect(built.status, built.stderr).toBe(0);
        // Moved away from the sources: only the app's own dependencies are installed there.
        symlinkSync(join(root, 'node_modules'), join(out, 'node_modules'), 'dir');
        const run = spawnSync(process.execPath, [join(out, 'app.js')], { cwd: out, encoding: 'utf8', timeout: 60_000 });
        if (name === 'plain') {
          expect(run.status).toBe(1);
          expect(run.stderr).toContain('mastra-native-processors was bundled into an ES module');
          expect(run.stderr).toContain('--external:mastra-native-processors');
          expect(run.stderr).not.toContain('--omit=optional');
        } else {
          expect(run.stderr).toBe('');
          expect(JSON.parse(run.stdout.trim())).toEqual(['get_weather']);
        }
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it('ESM import fails with the same error', () => {
    // A static import, as in a user's ESM app: the process stops with our message on stderr.
    // (Node 20 reports a CommonJS throw inside a dynamic import() as uncaught as well, so a
    // try/catch around import() cannot be used to check it there.)
    const viaRequire = load(pkgDir);
    const clean = { ...process.env };
    delete clean.NAPI_RS_NATIVE_LIBRARY_PATH;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', "import './index.mjs'"], {
      cwd: pkgDir,
      encoding: 'utf8',
      timeout: 60_000,
      env: clean,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(viaRequire.message!.split('\n').slice(0, 3).join('\n'));
    expect(r.stderr).toContain('Cannot find native binding');
  });

  it.each([
    ['freebsd-x64', 'freebsd x64'],
    ['linux-riscv64', 'linux riscv64'],
    ['win32-ia32', 'win32 ia32'],
    ['linux-ia32', 'linux ia32'],
  ])('unsupported platform %s: says so, lists the supported platforms and the WebAssembly build', (fake, shown) => {
    const o = load(pkgDir, { FAKE_PLATFORM: fake }, ['--require', join(pkgDir, 'fake-platform.cjs')]);
    expect(o.code).toBe('MASTRA_NATIVE_BINDING_NOT_FOUND');
    expect(o.message).toMatch(new RegExp(`no prebuilt native binary for this platform: ${shown}( \\((glibc|musl)\\))?, Node\\.js`));
    for (const p of PLATFORMS) expect(o.message).toContain(`  - ${p}`);
    expect(o.message).toContain(`\`npm install --cpu=wasm32\` in your project adds ${WASM}`);
    expect(o.message).toContain(`Cannot find module '${WASM}'`);
    expect(o.message).toContain('npm ci && npm run build');
    expect(o.cause).toContain('Cannot find native binding');
  });

  it('NAPI_RS_NATIVE_LIBRARY_PATH pointing nowhere: names the variable, even with a binary installed', () => {
    // The package copy plus this checkout's built binary (not the checkout itself: a local
    // WebAssembly build there, from npm run build:wasm, would be taken as the fallback).
    const withBinary = mkdtempSync(join(tmpdir(), 'mnp-with-binary-'));
    try {
      cpSync(pkgDir, withBinary, { recursive: true, verbatimSymlinks: true });
      const built = readdirSync(root).filter((f) => f.endsWith('.node'));
      expect(built.length).toBeGreaterThan(0);
      for (const f of built) cpSync(join(root, f), join(withBinary, f));
      expect(load(withBinary).loaded).toEqual(['SkillSearchProcessor', 'ToolCallFilter', 'ToolSearchProcessor', 'memoryStore', 'redisEmbeddingCache', 'redisLearnStore', 'redisStore']);
      const o = load(withBinary, { NAPI_RS_NATIVE_LIBRARY_PATH: join(pkgDir, 'nowhere.node') });
      expect(o.code).toBe('MASTRA_NATIVE_BINDING_NOT_FOUND');
      expect(o.message).toContain(`NAPI_RS_NATIVE_LIBRARY_PATH=${join(pkgDir, 'nowhere.node')}`);
      expect(o.message).toContain('Cannot find module');
    } finally {
      rmSync(withBinary, { recursive: true, force: true });
    }
  });

  it('message for each libc, and the Node.js version hint below 20.19', () => {
    const musl = nativeLoadError(new Error('x'), { platform: 'linux', arch: 'arm64', libc: 'musl', nodeVersion: '22.20.0', overridePath: '' });
    expect(musl.message).toContain('linux arm64 (musl)');
    expect(musl.message).toContain('mastra-native-processors-linux-arm64-musl');
    expect(musl.message).toContain('--libc=musl');
    expect(musl.message).not.toContain('older than');
    const old = nativeLoadError(undefined, { platform: 'linux', arch: 'x64', libc: 'glibc', nodeVersion: '20.18.1', overridePath: '' });
    expect(old.message).toContain('Node.js 20.18.1 is older than 20.19.0');
    expect(old.message).toContain('glibc 2.17 or newer');
    const mac = nativeLoadError(undefined, { platform: 'darwin', arch: 'arm64', nodeVersion: '24.1.0', overridePath: '' });
    expect(mac.message).toContain('(darwin arm64, Node.js 24.1.0)');
    expect(mac.message).toContain('mastra-native-processors-darwin-arm64');
    const winArm = nativeLoadError(undefined, { platform: 'win32', arch: 'arm64', nodeVersion: '22.20.0', overridePath: '' });
    expect(winArm.message).toContain('(win32 arm64, Node.js 22.20.0) could not be loaded');
    expect(winArm.message).toContain('optional dependency mastra-native-processors-win32-arm64-msvc');
    expect(SUPPORTED_PLATFORMS.map((p: any) => p.platform)).toEqual(PLATFORMS);
  });
});
