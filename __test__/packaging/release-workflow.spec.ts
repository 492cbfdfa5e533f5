// The release workflow cannot run here, so it is checked statically: actionlint (installed from PyPI
// into .tools/ on first use by scripts/actionlint.mjs) over .github/workflows/, plus the facts the
// release depends on (eight native platforms and the WebAssembly package, tag-gated publish with
// provenance).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WASM_FILES } from '../../scripts/build-wasm.mjs';

const root = join(__dirname, '..', '..');
const workflow = join(root, '.github', 'workflows', 'release.yml');

function actionlint(files: string[] = []) {
  const r = spawnSync(process.execPath, [join(root, 'scripts', 'actionlint.mjs'), ...files], { cwd: root, encoding: 'utf8', timeout: 120_000 });
  return { status: r.status, out: r.stdout + r.stderr };
}

describe('release workflow', () => {
  it('passes actionlint', () => {
    const r = actionlint();
    expect(r.out.replace(/^\[release\].*\n/gm, '')).toBe('');
    expect(r.status).toBe(0);
  }, 120_000);

  it('actionlint really checks (a broken workflow fails)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mnp-actionlint-'));
    try {
      const bad = join(dir, 'bad.yml');
      writeFileSync(bad, 'on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ matrix.nope }}\n');
      const r = actionlint([bad]);
      expect(r.status).not.toBe(0);
      expect(r.out).toContain('matrix');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('builds and tests all eight native platforms and the WebAssembly package, and publishes only on tags, with provenance', () => {
    const text = readFileSync(workflow, 'utf8');
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    for (const target of pkg.napi.targets) expect(text).toContain(`target: ${target}`);
    // every platform is built, and tested on its own runner after the build job
    const builds = text.slice(0, text.indexOf('  test-macos-windows:'));
    const tests = text.slice(text.indexOf('  test-macos-windows:'), text.indexOf('  publish:'));
    for (const platform of ['linux-x64-gnu', 'linux-arm64-gnu', 'linux-x64-musl', 'linux-arm64-musl', 'darwin-x64', 'darwin-arm64', 'win32-x64-msvc', 'win32-arm64-msvc']) {
      expect(builds).toContain(`platform: ${platform}\n`);
      expect(tests).toMatch(new RegExp(`platform: ${platform}[ ,}]`));
    }
    // Windows arm64: built and tested on the arm64 Windows runner
    expect(builds).toMatch(/- host: windows-11-arm\n\s+target: aarch64-pc-windows-msvc\n/);
    expect(tests).toContain('{ host: windows-11-arm, target: aarch64-pc-windows-msvc, platform: win32-arm64-msvc }');
    // WebAssembly: built by the script maintainers run, its files all uploaded, and installed with
    // --cpu=wasm32 and run (WebAssembly only) on Linux, macOS and Windows
    expect(builds).toMatch(/target: wasm32-wasip1-threads\n\s+platform: wasm32-wasi\n\s+build: node scripts\/build-artifacts\.mjs --target wasm32-wasip1-threads\n/);
    const upload = builds.slice(builds.indexOf('- uses: actions/upload-artifact'));
    const globs = [...upload.matchAll(/^\s+npm\/\$\{\{ matrix\.settings\.platform \}\}\/(.+)$/gm)].map((m) => m[1].replace('${{ env.APP_NAME }}', pkg.name));
    expect(globs.length).toBeGreaterThan(0);
    const matches = (file: string) => globs.some((g) => new RegExp(`^${g.replace(/[.]/g, '\\.').replace(/\*/g, '.*')}$`).test(file));
    for (const file of [...WASM_FILES, `${pkg.name}.linux-x64-gnu.node`]) expect(matches(file), file).toBe(true);
    expect(matches('package.json')).toBe(false);
    const wasm = tests.slice(tests.indexOf('  test-wasm:'));
    expect(wasm).toContain('name: bindings-wasm32-wasip1-threads');
    expect(wasm).toContain('path: npm/wasm32-wasi');
    expect(wasm).toContain('NAPI_RS_FORCE_WASI: error');
    expect(wasm).toContain('run: node scripts/test-artifacts.mjs --host --wasm');
    for (const host of ['ubuntu-latest', 'macos-latest', 'windows-latest']) expect(wasm).toContain(host);
    expect(tests.match(/node scripts\/test-artifacts\.mjs --host/g)).toHaveLength(4);
    // Bun and Deno run the same smokes on the linux x64 binary, and gate the publish
    expect(tests).toContain('runtime: [bun, deno]');
    expect(tests).toContain('node scripts/test-artifacts.mjs --host --runtime ${{ matrix.runtime }}');
    expect(text).toContain('needs: [build, test-macos-windows, test-linux, test-runtimes, test-wasm]');
    // every target's artifact goes into its npm/<platform> folder before pack-release --all checks them
    const publish = text.slice(text.indexOf('  publish:'));
    expect(publish).toContain(`for target in $(node -p 'require("./package.json").napi.targets.join(" ")'); do`);
    expect(publish).toContain('cp -v "artifacts/bindings-$target/"* "npm/$platform/"');
    expect(publish.indexOf('cp -v "artifacts/bindings-$target/"*')).toBeLessThan(publish.indexOf('node scripts/pack-release.mjs --all'));
    expect(text).toContain("if: startsWith(github.ref, 'refs/tags/v')");
    expect(text).toContain('id-token: write');
    expect(text).toContain('npx napi prepublish -t npm');
    // the main package is published from the checked release tarball, never from the folder
    expect(text).toContain('npm publish "release/$name-$version.tgz" --provenance --access public');
    expect(text).not.toMatch(/npm publish --provenance/);
    for (const node of ["'20.19.0'", "'22'", "'24'"]) expect(text).toContain(node);
  });
});
