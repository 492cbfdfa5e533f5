// The clear error when no native binary can be loaded (js/native.js over the generated binding.js).
// A missing binary is simulated in child processes: a temporary copy of the package without any
// .node file (as after `npm install --omit=optional`), a faked unsupported platform, and
// NAPI_RS_NATIVE_LIBRARY_PATH pointing nowhere.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(__dirname, '..');
const PLATFORMS = [
  'linux-x64-gnu',
  'linux-arm64-gnu',
  'linux-x64-musl',
  'linux-arm64-musl',
  'darwin-x64',
  'darwin-arm64',
  'win32-x64-msvc',
];
const { nativeLoadError, SUPPORTED_PLATFORMS, detectLibc } = require('../js/native-error.js');

let pkgDir: string;

beforeAll(() => {
  // The package as published minus its optional platform dependency: no .node anywhere.
  pkgDir = mkdtempSync(join(tmpdir(), 'mnp-no-binary-'));
  for (const f of ['package.json', 'index.js', 'index.mjs', 'index.d.ts', 'binding.js']) cpSync(join(root, f), join(pkgDir, f));
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
    expect(load(root).loaded).toEqual(['SkillSearchProcessor', 'ToolCallFilter', 'ToolSearchProcessor', 'memoryStore', 'redisStore']);
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
    ['win32-arm64', 'win32 arm64'],
    ['linux-ia32', 'linux ia32'],
  ])('unsupported platform %s: says so and lists the supported platforms', (fake, shown) => {
    const o = load(pkgDir, { FAKE_PLATFORM: fake }, ['--require', join(pkgDir, 'fake-platform.cjs')]);
    expect(o.code).toBe('MASTRA_NATIVE_BINDING_NOT_FOUND');
    expect(o.message).toMatch(new RegExp(`no prebuilt native binary for this platform: ${shown}( \\((glibc|musl)\\))?, Node\\.js`));
    for (const p of PLATFORMS) expect(o.message).toContain(`  - ${p}`);
    expect(o.message).toContain('npm ci && npm run build');
    expect(o.cause).toContain('Cannot find native binding');
  });

  it('NAPI_RS_NATIVE_LIBRARY_PATH pointing nowhere: names the variable, even with a binary installed', () => {
    const o = load(root, { NAPI_RS_NATIVE_LIBRARY_PATH: join(pkgDir, 'nowhere.node') });
    expect(o.code).toBe('MASTRA_NATIVE_BINDING_NOT_FOUND');
    expect(o.message).toContain(`NAPI_RS_NATIVE_LIBRARY_PATH=${join(pkgDir, 'nowhere.node')}`);
    expect(o.message).toContain('Cannot find module');
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
    expect(SUPPORTED_PLATFORMS.map((p: any) => p.platform)).toEqual(PLATFORMS);
  });
});
