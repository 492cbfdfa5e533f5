// What the release publishes, checked without building: the eight native platform packages and the
// WebAssembly one in npm/, their os/cpu/libc fields and versions, the main package's files (LICENSE, no .node) and engines, and the
// release-time optionalDependencies (never committed: npm ci could not lock unpublished packages),
// and the model package (packages/model-multilingual): its own version inside the main package's
// optional peer range, its tarball checked by pack:release, published by the release workflow.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkModelPackage, inCaretRange, MODEL_FILES, packModel, packRelease, platformPackageSource, readTarGz } from '../../scripts/pack-release.mjs';
import { binaryOf, platformOf } from '../../scripts/lib/tools.mjs';
import { checkWasmManifest, WASM_FILES, WASM_RUNTIME } from '../../scripts/build-wasm.mjs';

const root = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const expected = {
  'linux-x64-gnu': { os: ['linux'], cpu: ['x64'], libc: ['glibc'], target: 'x86_64-unknown-linux-gnu' },
  'linux-arm64-gnu': { os: ['linux'], cpu: ['arm64'], libc: ['glibc'], target: 'aarch64-unknown-linux-gnu' },
  'linux-x64-musl': { os: ['linux'], cpu: ['x64'], libc: ['musl'], target: 'x86_64-unknown-linux-musl' },
  'linux-arm64-musl': { os: ['linux'], cpu: ['arm64'], libc: ['musl'], target: 'aarch64-unknown-linux-musl' },
  'darwin-x64': { os: ['darwin'], cpu: ['x64'], target: 'x86_64-apple-darwin' },
  'darwin-arm64': { os: ['darwin'], cpu: ['arm64'], target: 'aarch64-apple-darwin' },
  'win32-x64-msvc': { os: ['win32'], cpu: ['x64'], target: 'x86_64-pc-windows-msvc' },
  'win32-arm64-msvc': { os: ['win32'], cpu: ['arm64'], target: 'aarch64-pc-windows-msvc' },
};
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));

describe('release configuration', () => {
  it('napi targets are the eight native platforms and the WebAssembly build', () => {
    expect(pkg.napi.targets).toEqual([...Object.values(expected).map((e) => e.target), 'wasm32-wasip1-threads']);
    expect(pkg.napi.targets.map(platformOf)).toEqual([...Object.keys(expected), 'wasm32-wasi']);
  });

  it.each(Object.entries(expected))('npm/%s: name, version, os/cpu/libc, binary, engines', (platform, want: any) => {
    const sub = JSON.parse(readFileSync(join(root, 'npm', platform, 'package.json'), 'utf8'));
    expect(sub.name).toBe(`${pkg.name}-${platform}`);
    expect(sub.version).toBe(pkg.version);
    expect(sub.os).toEqual(want.os);
    expect(sub.cpu).toEqual(want.cpu);
    expect(sub.libc).toEqual(want.libc);
    expect(sub.main).toBe(`${pkg.name}.${platform}.node`);
    expect(sub.files).toEqual([`${pkg.name}.${platform}.node`]);
    expect(sub.engines).toEqual(pkg.engines);
    expect(sub.license).toBe('MIT');
  });

  it('npm/wasm32-wasi: the package napi-rs generates for wasm32-wasip1-threads, its runtime pinned to the tested versions', () => {
    const sub = JSON.parse(readFileSync(join(root, 'npm', 'wasm32-wasi', 'package.json'), 'utf8'));
    expect(sub.name).toBe(`${pkg.name}-wasm32-wasi`);
    expect(sub.version).toBe(pkg.version);
    // cpu wasm32 and no os: npm installs it only when asked (npm install --cpu=wasm32), on any OS
    expect(sub.cpu).toEqual(['wasm32']);
    expect(sub.os).toBeUndefined();
    expect(sub.libc).toBeUndefined();
    expect(sub.main).toBe(`${pkg.name}.wasi.cjs`);
    expect(sub.types).toBe(`${pkg.name}.wasi.d.cts`);
    expect(sub.browser).toBe(`${pkg.name}.wasi-browser.js`);
    expect(sub.type).toBe('module');
    expect(sub.files).toEqual(WASM_FILES);
    expect(sub.files).toContain(`${pkg.name}.wasm32-wasi.wasm`);
    // napi-rs restricts engines to the Node.js lines its WASI runtime supports
    expect(sub.engines).toEqual({ node: '^20.19.0 || ^22.13.0 || >=23.5.0' });
    expect(sub.license).toBe('MIT');
    // its runtime: exactly what package-lock.json installs for this repository's tests
    expect(Object.keys(sub.dependencies).sort()).toEqual([...WASM_RUNTIME].sort());
    for (const dep of WASM_RUNTIME) {
      expect(sub.dependencies[dep], dep).toBe(lock.packages[`node_modules/${dep}`].version);
      expect(pkg.devDependencies[dep], dep).toBe(sub.dependencies[dep]);
    }
    expect(checkWasmManifest(pkg)).toEqual([]);
    // and the check notices a drift
    const drifted = { ...pkg, devDependencies: { ...pkg.devDependencies, '@napi-rs/wasm-runtime': '0.0.1' } };
    expect(checkWasmManifest(drifted)).toEqual([expect.stringContaining('devDependencies @napi-rs/wasm-runtime@0.0.1')]);
  });

  it('the generated loader embeds the package version', () => {
    const loader = readFileSync(join(root, 'binding.js'), 'utf8');
    const versions = new Set([...loader.matchAll(/bindingPackageVersion !== '([^']+)'/g)].map((m) => m[1]));
    expect([...versions]).toEqual([pkg.version]);
  });

  it('engines: Node.js 20.19+ (what @mastra/core needs: require(esm))', () => {
    expect(pkg.engines).toEqual({ node: '>=20.19.0' });
  });

  it('no optionalDependencies committed (added at release time by napi prepublish / pack:release)', () => {
    expect(pkg.optionalDependencies).toBeUndefined();
  });

  it('npm publish of the folder is refused without the platform optionalDependencies, pointing at pack:release', () => {
    const r = spawnSync('npm', ['publish', '--dry-run'], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('npm publish refused: package.json does not list the platform packages as optionalDependencies');
    expect(r.stderr).toContain('npm run pack:release');
    for (const t of pkg.napi.targets) expect(r.stderr).toContain(`${pkg.name}-${platformOf(t)}@${pkg.version}`);
    // With them (what napi prepublish writes), the guard lets it through; one at another version is refused.
    const dir = mkdtempSync(join(tmpdir(), 'mnp-guard-'));
    try {
      const manifest = join(dir, 'package.json');
      const deps = Object.fromEntries(pkg.napi.targets.map((t: string) => [`${pkg.name}-${platformOf(t)}`, pkg.version]));
      const guard = (optionalDependencies: Record<string, string>) => {
        writeFileSync(manifest, JSON.stringify({ ...pkg, optionalDependencies }));
        return spawnSync(process.execPath, [join(root, 'scripts', 'publish-guard.mjs'), manifest], { encoding: 'utf8' });
      };
      expect(guard(deps).status).toBe(0);
      const stale = guard({ ...deps, [`${pkg.name}-darwin-arm64`]: '0.0.1' });
      expect(stale.status).toBe(1);
      expect(stale.stderr).toContain(`${pkg.name}-darwin-arm64@${pkg.version} is missing or at another version`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('npm pack: LICENSE, entry points and js/, no .node', () => {
    const r = spawnSync('npm', ['pack', '--dry-run', '--json'], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    const files = JSON.parse(r.stdout)[0].files.map((f: { path: string }) => f.path);
    for (const f of ['LICENSE', 'README.md', 'package.json', 'index.js', 'index.mjs', 'index.d.ts', 'binding.js', 'js/native.js', 'js/native-error.js'])
      expect(files).toContain(f);
    expect(files.filter((f: string) => f.endsWith('.node'))).toEqual([]);
    expect(files.filter((f: string) => f.startsWith('npm/') || f.startsWith('scripts/'))).toEqual([]);
  });

  it('LICENSE is MIT, 2026, the contributors', () => {
    const text = readFileSync(join(root, 'LICENSE'), 'utf8');
    expect(text).toContain('MIT License');
    expect(text).toContain('Copyright (c) 2026 mastra-native-processors contributors');
  });

  it('npm version bumps every package and the loader in step (scripts/version-sync.mjs)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mnp-version-'));
    try {
      for (const f of ['package.json', 'package-lock.json', 'binding.js', 'npm', 'scripts', 'packages/model-multilingual/package.json'])
        cpSync(join(root, f), join(dir, f), { recursive: true });
      symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
      const r = spawnSync('npm', ['version', '9.8.7-rc.1', '--no-git-tag-version'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
      expect(r.status, r.stdout + r.stderr).toBe(0);
      for (const platform of readdirSync(join(dir, 'npm')))
        expect(JSON.parse(readFileSync(join(dir, 'npm', platform, 'package.json'), 'utf8')).version).toBe('9.8.7-rc.1');
      const loader = readFileSync(join(dir, 'binding.js'), 'utf8');
      expect(new Set([...loader.matchAll(/bindingPackageVersion !== '([^']+)'/g)].map((m) => m[1]))).toEqual(new Set(['9.8.7-rc.1']));
      expect(loader).not.toContain(`expected ${pkg.version} but got`);
      // the model package keeps its own version
      const model = (d: string) => JSON.parse(readFileSync(join(d, 'packages', 'model-multilingual', 'package.json'), 'utf8')).version;
      expect(model(dir)).toBe(model(root));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const MODEL = 'mastra-native-processors-model-multilingual';
const modelDir = join(root, 'packages', 'model-multilingual');
const workflow = readFileSync(join(root, '.github', 'workflows', 'release.yml'), 'utf8');

/** A copy of the model package with a small stand-in model.bin (and matching model.json). */
function fakeModelPackage(edit: (dir: string) => void = () => {}) {
  const dir = mkdtempSync(join(tmpdir(), 'mnp-model-pkg-'));
  for (const f of ['package.json', 'index.js', 'index.d.ts', 'LICENSE', 'NOTICE.md', 'README.md']) cpSync(join(modelDir, f), join(dir, f));
  const bin = Buffer.concat([Buffer.from('MNPSEMB1'), Buffer.from('stand-in rows')]);
  writeFileSync(join(dir, 'model.bin'), bin);
  const meta = JSON.parse(readFileSync(join(modelDir, 'model.json'), 'utf8'));
  writeFileSync(join(dir, 'model.json'), JSON.stringify({ ...meta, sha256: createHash('sha256').update(bin).digest('hex') }));
  edit(dir);
  return dir;
}

function editJson(file: string, change: (value: any) => void) {
  const value = JSON.parse(readFileSync(file, 'utf8'));
  change(value);
  writeFileSync(file, JSON.stringify(value));
}

describe('model package release', () => {
  it('caret ranges as npm reads them (the peer range check)', () => {
    expect(inCaretRange('0.1.0', '^0.1.0')).toBe(true);
    expect(inCaretRange('0.1.7', '^0.1.0')).toBe(true);
    expect(inCaretRange('0.2.0', '^0.1.0')).toBe(false);
    expect(inCaretRange('0.0.9', '^0.1.0')).toBe(false);
    expect(inCaretRange('1.4.0', '^1.2.3')).toBe(true);
    expect(inCaretRange('1.2.2', '^1.2.3')).toBe(false);
    expect(inCaretRange('2.0.0', '^1.2.3')).toBe(false);
    expect(inCaretRange('0.0.3', '^0.0.3')).toBe(true);
    expect(inCaretRange('0.0.4', '^0.0.3')).toBe(false);
    expect(() => inCaretRange('0.1.0', '>=0.1.0')).toThrow(/expected the form \^x\.y\.z/);
  });

  it('is an optional peer of the main package, whose range accepts its own version', () => {
    const model = checkModelPackage(pkg);
    expect(model.name).toBe(MODEL);
    expect(pkg.peerDependenciesMeta[MODEL]).toEqual({ optional: true });
    expect(inCaretRange(model.version, pkg.peerDependencies[MODEL])).toBe(true);
    const outside = { ...pkg, peerDependencies: { ...pkg.peerDependencies, [MODEL]: '^9.0.0' } };
    expect(() => checkModelPackage(outside)).toThrow(`model package version ${model.version} is outside the main package's peer range ^9.0.0`);
    const notOptional = { ...pkg, peerDependenciesMeta: {} };
    expect(() => checkModelPackage(notOptional)).toThrow(/optional must be true/);
  });

  it('pack:release writes the main, platform and model tarballs; the model tarball ships model.bin as model.json records', () => {
    const dest = mkdtempSync(join(tmpdir(), 'mnp-release-'));
    try {
      const written = packRelease({ quiet: true, dest });
      const model = JSON.parse(readFileSync(join(modelDir, 'package.json'), 'utf8'));
      const modelTgz = `${MODEL}-${model.version}.tgz`;
      expect(written.map((w: { file: string }) => w.file)).toContain(modelTgz);
      expect(readdirSync(dest)).toContain(modelTgz);
      expect(readdirSync(dest)).toContain(`${pkg.name}-${pkg.version}.tgz`);
      const files = readTarGz(join(dest, modelTgz));
      expect([...files.keys()].sort()).toEqual(MODEL_FILES.map((f: string) => `package/${f}`).sort());
      const sha = createHash('sha256').update(files.get('package/model.bin')).digest('hex');
      expect(sha).toBe(JSON.parse(files.get('package/model.json').toString()).sha256);
      // the main tarball declares the optional peer
      const main = JSON.parse(readTarGz(join(dest, `${pkg.name}-${pkg.version}.tgz`)).get('package/package.json').toString());
      expect(main.peerDependencies[MODEL]).toBe(pkg.peerDependencies[MODEL]);
      expect(main.peerDependenciesMeta[MODEL]).toEqual({ optional: true });
      // ... every platform package at this exact version, and nothing only this repository needs
      expect(main.optionalDependencies).toEqual(Object.fromEntries(pkg.napi.targets.map((t: string) => [`${pkg.name}-${platformOf(t)}`, pkg.version])));
      expect(Object.keys(main.optionalDependencies)).toHaveLength(9);
      expect(main.optionalDependencies[`${pkg.name}-wasm32-wasi`]).toBe(pkg.version);
      expect(main.optionalDependencies[`${pkg.name}-win32-arm64-msvc`]).toBe(pkg.version);
      expect(main.scripts).toBeUndefined();
      expect(main.devDependencies).toBeUndefined();
      // a native binary `npm run build` left in the root is packed when npm/<platform>/ has none,
      // and npm/<platform>/ is left as committed
      for (const platform of Object.keys(expected)) {
        const binary = binaryOf(pkg.name, platform);
        if (existsSync(join(root, 'npm', platform, binary)) || !existsSync(join(root, binary))) continue;
        const tgz = `${pkg.name}-${platform}-${pkg.version}.tgz`;
        expect(written.map((w: { file: string }) => w.file)).toContain(tgz);
        const packed = readTarGz(join(dest, tgz));
        expect([...packed.keys()]).toContain(`package/${binary}`);
        expect(packed.get(`package/${binary}`).equals(readFileSync(join(root, binary)))).toBe(true);
        expect(existsSync(join(root, 'npm', platform, binary))).toBe(false);
      }
    } finally {
      rmSync(dest, { recursive: true, force: true });
    }
  }, 120_000);

  it("pack:release takes a native binary from the root only where npm/<platform>/ has none, never for --all or WebAssembly", () => {
    const from = mkdtempSync(join(tmpdir(), 'mnp-root-'));
    const stage = mkdtempSync(join(tmpdir(), 'mnp-stage-'));
    try {
      const gnu = binaryOf(pkg.name, 'linux-x64-gnu');
      const musl = binaryOf(pkg.name, 'linux-x64-musl');
      const wasm = binaryOf(pkg.name, 'wasm32-wasi');
      for (const platform of ['linux-x64-gnu', 'linux-x64-musl', 'wasm32-wasi']) {
        mkdirSync(join(from, 'npm', platform), { recursive: true });
        writeFileSync(join(from, 'npm', platform, 'package.json'), '{}');
      }
      writeFileSync(join(from, 'npm', 'linux-x64-musl', musl), 'from npm/');
      for (const f of [gnu, musl, wasm]) writeFileSync(join(from, f), 'from the root');

      const rooted = platformPackageSource('linux-x64-gnu', gnu, stage, { from });
      expect(rooted.dir.startsWith(stage)).toBe(true);
      expect(readFileSync(join(rooted.dir, gnu), 'utf8')).toBe('from the root');
      expect(readFileSync(join(rooted.dir, 'package.json'), 'utf8')).toBe('{}');
      expect(existsSync(join(from, 'npm', 'linux-x64-gnu', gnu))).toBe(false);
      expect(platformPackageSource('linux-x64-musl', musl, stage, { from })).toEqual({ dir: join(from, 'npm', 'linux-x64-musl'), what: 'linux-x64-musl' });
      expect(platformPackageSource('linux-x64-gnu', gnu, stage, { from, allowRoot: false })).toBeUndefined();
      expect(platformPackageSource('wasm32-wasi', wasm, stage, { from })).toBeUndefined();
    } finally {
      rmSync(from, { recursive: true, force: true });
      rmSync(stage, { recursive: true, force: true });
    }
  });

  it.each([
    ['a model.bin whose sha256 is not the one model.json records', (d: string) => writeFileSync(join(d, 'model.bin'), 'MNPSEMB1 changed'), /model\.bin sha256 [0-9a-f]{64}, model\.json says/],
    ['a model.bin that is not a model', (d: string) => writeFileSync(join(d, 'model.bin'), 'not a model'), /does not start with MNPSEMB1/],
    ['a file too many', (d: string) => (writeFileSync(join(d, 'extra.txt'), 'x'), editJson(join(d, 'package.json'), (m) => m.files.push('extra.txt'))), /unexpected extra\.txt/],
    ['a file missing', (d: string) => editJson(join(d, 'package.json'), (m) => (m.files = m.files.filter((f: string) => f !== 'NOTICE.md'))), /missing NOTICE\.md/],
    ['model.bin left out of files', (d: string) => editJson(join(d, 'package.json'), (m) => (m.files = m.files.filter((f: string) => f !== 'model.bin'))), /missing model\.bin/],
  ])('pack:release refuses %s', (_what, edit, error) => {
    const dir = fakeModelPackage(edit);
    const dest = mkdtempSync(join(tmpdir(), 'mnp-release-'));
    try {
      expect(() => packModel(dest, pkg, dir)).toThrow(error);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(dest, { recursive: true, force: true });
    }
  }, 60_000);

  it('a well-formed stand-in passes the same checks (the failures above come from the edits)', () => {
    const dir = fakeModelPackage();
    const dest = mkdtempSync(join(tmpdir(), 'mnp-release-'));
    try {
      const packed = packModel(dest, pkg, dir);
      expect(packed.file).toMatch(new RegExp(`^${MODEL}-\\d+\\.\\d+\\.\\d+\\.tgz$`));
      expect(packed.files).toBe(MODEL_FILES.length);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(dest, { recursive: true, force: true });
    }
  }, 60_000);

  it('release.yml publishes the checked model tarball first, only when its version is new on npm, with provenance', () => {
    const publish = workflow.slice(workflow.indexOf('  publish:'));
    const at = (text: string) => {
      const i = publish.indexOf(text);
      expect(i, text).toBeGreaterThan(-1);
      return i;
    };
    // repository URL (provenance) set in the model package before pack-release packs and checks it
    expect(publish).toMatch(/for dir in npm\/\*\/ packages\/model-multilingual\/; do .*npm pkg set repository\.type=git "repository\.url=\$REPO_URL"/);
    expect(at('npm pkg set repository.type=git')).toBeLessThan(at('node scripts/pack-release.mjs --all'));
    const step = publish.slice(at('- name: Publish the model package if its version is new'), at('- name: Publish the platform packages'));
    expect(step).toContain('npm view "$name@$version" version');
    expect(step).toContain('npm publish "release/$name-$version.tgz" --provenance --access public');
    expect(step).toContain('NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}');
    expect(at('node scripts/pack-release.mjs --all')).toBeLessThan(at('- name: Publish the model package'));
    expect(at('- name: Publish the model package')).toBeLessThan(at('npx napi prepublish -t npm'));
  });

  it('test:artifacts installs the model package and runs the hybrid smoke in the x64-gnu, host and wasm32-wasi scenarios', () => {
    const script = readFileSync(join(root, 'scripts', 'test-artifacts.mjs'), 'utf8');
    for (const fn of ['function testX64Gnu(', 'function testHost(', 'function testWasm(']) {
      const body = script.slice(script.indexOf(fn), script.indexOf('\n}\n', script.indexOf(fn)));
      expect(body, fn).toContain('testHybrid(dir, env,');
    }
    expect(readdirSync(join(root, 'test-artifacts'))).toContain('hybrid-smoke.mjs');
  });
});
