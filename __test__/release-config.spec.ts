// What the release publishes, checked without building: the seven platform packages in npm/, their
// os/cpu/libc fields and versions, the main package's files (LICENSE, no .node) and engines, and the
// release-time optionalDependencies (never committed: npm ci could not lock unpublished packages).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const expected = {
  'linux-x64-gnu': { os: ['linux'], cpu: ['x64'], libc: ['glibc'], target: 'x86_64-unknown-linux-gnu' },
  'linux-arm64-gnu': { os: ['linux'], cpu: ['arm64'], libc: ['glibc'], target: 'aarch64-unknown-linux-gnu' },
  'linux-x64-musl': { os: ['linux'], cpu: ['x64'], libc: ['musl'], target: 'x86_64-unknown-linux-musl' },
  'linux-arm64-musl': { os: ['linux'], cpu: ['arm64'], libc: ['musl'], target: 'aarch64-unknown-linux-musl' },
  'darwin-x64': { os: ['darwin'], cpu: ['x64'], target: 'x86_64-apple-darwin' },
  'darwin-arm64': { os: ['darwin'], cpu: ['arm64'], target: 'aarch64-apple-darwin' },
  'win32-x64-msvc': { os: ['win32'], cpu: ['x64'], target: 'x86_64-pc-windows-msvc' },
};

describe('release configuration', () => {
  it('napi targets are the seven supported platforms', () => {
    expect(pkg.napi.targets).toEqual(Object.values(expected).map((e) => e.target));
  });

  it.each(Object.entries(expected))('npm/%s: name, version, os/cpu/libc, binary, engines', (platform, want) => {
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
      for (const f of ['package.json', 'binding.js', 'npm', 'scripts']) cpSync(join(root, f), join(dir, f), { recursive: true });
      symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
      const r = spawnSync('npm', ['version', '9.8.7-rc.1', '--no-git-tag-version'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
      expect(r.status, r.stdout + r.stderr).toBe(0);
      for (const platform of readdirSync(join(dir, 'npm')))
        expect(JSON.parse(readFileSync(join(dir, 'npm', platform, 'package.json'), 'utf8')).version).toBe('9.8.7-rc.1');
      const loader = readFileSync(join(dir, 'binding.js'), 'utf8');
      expect(new Set([...loader.matchAll(/bindingPackageVersion !== '([^']+)'/g)].map((m) => m[1]))).toEqual(new Set(['9.8.7-rc.1']));
      expect(loader).not.toContain(`expected ${pkg.version} but got`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
