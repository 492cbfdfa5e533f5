// Helpers shared by the release scripts: run commands, and install the build/test tools they need
// from the package registries into .tools/ (ignored by git), once per machine.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const toolsDir = process.env.MNP_TOOLS_DIR || join(root, '.tools');
export const pkg = () => JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

export function log(...args) {
  console.log('[release]', ...args);
}

/** Runs a command, inheriting stdio; throws with the command line on a non-zero exit. */
export function run(cmd, args, opts = {}) {
  const { quiet, ...rest } = opts;
  if (!quiet) log('$', cmd, ...args.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)));
  const r = spawnSync(cmd, args, { stdio: quiet ? 'pipe' : 'inherit', encoding: 'utf8', shell: isWindows, ...rest });
  if (r.error) throw new Error(`${cmd} failed to start: ${r.error.message}`);
  if (r.status !== 0) {
    const detail = quiet ? `\n${r.stdout ?? ''}${r.stderr ?? ''}` : '';
    throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status ?? r.signal}${detail}`);
  }
  return r;
}

/** Runs a command and returns its stdout (stderr passes through). */
export function capture(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 << 20, shell: isWindows, ...opts });
  if (r.error) throw new Error(`${cmd} failed to start: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status ?? r.signal}`);
  return r.stdout;
}

/** (On Windows, `npm` is a .cmd script that only runs through a shell.) */
export const isWindows = process.platform === 'win32';

export function which(bin, env = process.env) {
  const exts = isWindows ? ['.exe', '.cmd', ''] : [''];
  for (const d of (env.PATH || env.Path || '').split(delimiter))
    for (const e of exts) if (d && existsSync(join(d, bin + e))) return join(d, bin + e);
  return null;
}

/**
 * A Python venv under .tools/<name> with the given pinned requirements (PyPI). Returns its bin dir.
 * Re-installs only when the requirement list changes.
 */
export function ensureVenv(name, requirements) {
  const dir = join(toolsDir, name);
  const stamp = join(dir, '.requirements');
  const want = requirements.join('\n');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === want) return join(dir, 'bin');
  mkdirSync(toolsDir, { recursive: true });
  const python = which('python3') || which('python');
  if (!python) throw new Error('python3 is needed to install ' + requirements.join(', ') + ' from PyPI');
  run(python, ['-m', 'venv', dir]);
  run(join(dir, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', '--only-binary=:all:', ...requirements]);
  writeFileSync(stamp, want);
  return join(dir, 'bin');
}

/**
 * PyPI packages (binary wheels only) installed with `pip install --target .tools/<name>`: no venv, so
 * a first install takes seconds, not the ~20 s of creating a venv. Returns the folder.
 */
export function ensurePipTarget(name, requirements) {
  const dir = join(toolsDir, name);
  const stamp = join(dir, '.requirements');
  const want = requirements.join('\n');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === want) return dir;
  const python = which('python3') || which('python');
  if (!python) throw new Error('python3 is needed to install ' + requirements.join(', ') + ' from PyPI');
  run(python, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '--root-user-action=ignore',
    '--only-binary=:all:', '--upgrade', '--target', dir, ...requirements]);
  writeFileSync(stamp, want);
  return dir;
}

let aptUpdated = false;
/** Installs Debian packages whose command (or file) is missing. Needs root + apt (Debian/Ubuntu). */
export function ensureApt(packages) {
  const missing = packages.filter(([, probe]) => !(probe.startsWith('/') ? existsSync(probe) : which(probe)));
  if (!missing.length) return;
  const names = missing.map(([name]) => name);
  if (!which('apt-get')) throw new Error(`missing ${names.join(', ')}; install them with your package manager`);
  if (!aptUpdated) {
    run('apt-get', ['update', '-qq']);
    aptUpdated = true;
  }
  run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...names], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}

/** Rust targets installed with rustup (idempotent). */
export function ensureRustTargets(targets) {
  const have = new Set(capture('rustup', ['target', 'list', '--installed']).split('\n').filter(Boolean));
  const missing = targets.filter((t) => !have.has(t));
  if (missing.length) run('rustup', ['target', 'add', ...missing]);
}

/** npm platform folder name (napi convention) for a Rust target triple. */
export function platformOf(triple) {
  const t = triple.split('.')[0];
  const map = {
    'x86_64-unknown-linux-gnu': 'linux-x64-gnu',
    'aarch64-unknown-linux-gnu': 'linux-arm64-gnu',
    'x86_64-unknown-linux-musl': 'linux-x64-musl',
    'aarch64-unknown-linux-musl': 'linux-arm64-musl',
    'x86_64-apple-darwin': 'darwin-x64',
    'aarch64-apple-darwin': 'darwin-arm64',
    'x86_64-pc-windows-msvc': 'win32-x64-msvc',
    'aarch64-pc-windows-msvc': 'win32-arm64-msvc',
    'wasm32-wasip1-threads': 'wasm32-wasi',
  };
  if (!map[t]) throw new Error('unknown target ' + triple);
  return map[t];
}

/** The file a platform package ships its addon in: a .node, or the .wasm of the WebAssembly package. */
export function binaryOf(name, platform) {
  return platform.startsWith('wasm32-') ? `${name}.${platform}.wasm` : `${name}.${platform}.node`;
}
