'use strict';
// The error js/native.js throws when no native binary can be loaded: names the platform (os, arch,
// libc), lists the supported ones and says what to do. Kept free of the addon so it can be tested
// for any platform.

const PACKAGE = 'mastra-native-processors';

/** Platforms with a prebuilt binary (npm/<platform>/ packages, optionalDependencies of the main package). */
const SUPPORTED_PLATFORMS = [
  { platform: 'linux-x64-gnu', os: 'linux', arch: 'x64', libc: 'glibc', label: 'Linux x64, glibc 2.17+' },
  { platform: 'linux-arm64-gnu', os: 'linux', arch: 'arm64', libc: 'glibc', label: 'Linux arm64, glibc 2.17+' },
  { platform: 'linux-x64-musl', os: 'linux', arch: 'x64', libc: 'musl', label: 'Linux x64, musl (Alpine)' },
  { platform: 'linux-arm64-musl', os: 'linux', arch: 'arm64', libc: 'musl', label: 'Linux arm64, musl (Alpine)' },
  { platform: 'darwin-x64', os: 'darwin', arch: 'x64', libc: null, label: 'macOS x64 (Intel)' },
  { platform: 'darwin-arm64', os: 'darwin', arch: 'arm64', libc: null, label: 'macOS arm64 (Apple silicon)' },
  { platform: 'win32-x64-msvc', os: 'win32', arch: 'x64', libc: null, label: 'Windows x64' },
  { platform: 'win32-arm64-msvc', os: 'win32', arch: 'arm64', libc: null, label: 'Windows arm64' },
];
/** The WebAssembly build: any platform, installed on request (its npm `cpu` is wasm32). */
const WASM_PACKAGE = `${PACKAGE}-wasm32-wasi`;

const MIN_NODE = [20, 19, 0];

/** 'glibc' | 'musl' | null (not Linux), detected the way the napi loader does. */
function detectLibc() {
  if (process.platform !== 'linux') return null;
  try {
    if (require('fs').readFileSync('/usr/bin/ldd', 'utf8').includes('musl')) return 'musl';
  } catch {
    // no /usr/bin/ldd: ask the process report below
  }
  try {
    const report = process.report && typeof process.report.getReport === 'function' ? process.report.getReport() : null;
    if (report && report.header && report.header.glibcVersionRuntime) return 'glibc';
    if (report && Array.isArray(report.sharedObjects)) {
      if (report.sharedObjects.some((f) => f.includes('libc.musl-') || f.includes('ld-musl-'))) return 'musl';
    }
  } catch {
    // fall through
  }
  return 'glibc';
}

function nodeTooOld(version = process.versions.node) {
  const v = version.split('.').map(Number);
  for (let i = 0; i < 3; i++) if (v[i] !== MIN_NODE[i]) return v[i] < MIN_NODE[i];
  return false;
}

/**
 * The platform packages this copy's own package.json declares (optionalDependencies): empty when
 * it was packed without them (a plain `npm pack`/`npm publish` of the repository), which no
 * install can repair. Read from disk, never required (a bundler must not inline it).
 */
function declaredPlatformPackages() {
  try {
    const fs = require('fs');
    const path = require('path');
    const dir = path.join(__dirname, '..');
    // A source checkout never lists them (they are added at release): the build hint applies.
    if (fs.existsSync(path.join(dir, 'Cargo.toml'))) return null;
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    return Object.keys(manifest.optionalDependencies || {}).filter((name) => name.startsWith(`${PACKAGE}-`));
  } catch {
    return null; // unknown (e.g. bundled without its package.json): say nothing about it
  }
}

/** Messages of an error and its cause chain (napi's loader chains one error per load attempt). */
function causeMessages(error, limit = 8) {
  const out = [];
  const seen = new Set();
  let e = error && error.cause;
  while (e && !seen.has(e) && out.length < limit) {
    seen.add(e);
    if (Array.isArray(e)) {
      for (const x of e.slice(0, limit - out.length)) out.push(String((x && x.message) || x).split('\n')[0]);
      break;
    }
    out.push(String(e.message || e).split('\n')[0]);
    e = e.cause;
  }
  return out;
}

/**
 * The error thrown when the addon cannot be loaded. Exported for tests; `platform`, `arch`, `libc`
 * and `nodeVersion` default to this process.
 */
function nativeLoadError(cause, env = {}) {
  const os = env.platform ?? process.platform;
  const arch = env.arch ?? process.arch;
  const libc = env.libc !== undefined ? env.libc : os === 'linux' ? detectLibc() : null;
  const nodeVersion = env.nodeVersion ?? process.versions.node;
  const overridePath = env.overridePath !== undefined ? env.overridePath : process.env.NAPI_RS_NATIVE_LIBRARY_PATH;
  const declared = env.declaredPackages !== undefined ? env.declaredPackages : declaredPlatformPackages();
  const here = `${os} ${arch}${libc ? ` (${libc})` : ''}`;
  const match = SUPPORTED_PLATFORMS.find((p) => p.os === os && p.arch === arch && (p.libc === null || p.libc === libc));
  const list = SUPPORTED_PLATFORMS.map((p) => `  - ${p.platform.padEnd(16)} ${p.label}`).join('\n');
  const lines = [];
  const chain = [cause && cause.message, ...causeMessages(cause)].filter(Boolean).join('\n');
  if (/Dynamic require of .* is not supported|require is not defined/.test(chain)) {
    // An ES-module bundle (e.g. esbuild --format=esm) that replaced require() with a stub: the
    // loader could not even read the file system. No install fixes that; the bundle config does.
    lines.push(
      `${PACKAGE}: the native binary could not be loaded because ${PACKAGE} was bundled into an ES module`,
      `without require() (${here}, Node.js ${nodeVersion}). Keep it out of the bundle, which is what native`,
      `addons need: esbuild --external:${PACKAGE} (or --packages=external), rollup/webpack externals,`,
      `Next.js serverExternalPackages: ['${PACKAGE}']. Or give the bundle a require, e.g. the esbuild banner`,
      `  import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);`,
      `and copy the .node file next to it (esbuild --loader:.node=copy).`,
    );
  } else if (!match) {
    lines.push(
      `${PACKAGE}: no prebuilt native binary for this platform: ${here}, Node.js ${nodeVersion}.`,
      `Supported platforms:`,
      list,
      `On another platform, either:`,
      `  - install the WebAssembly build, which runs anywhere Node.js runs (slower, see the README):`,
      `    \`npm install --cpu=wasm32\` in your project adds ${WASM_PACKAGE}, which the loader then takes;`,
      `  - or build the addon from source (needs Rust, https://rustup.rs): clone the repository and run`,
      `    \`npm ci && npm run build\`, then install that folder (npm install <path>), or point`,
      `    NAPI_RS_NATIVE_LIBRARY_PATH at the built .node file.`,
    );
  } else {
    const dep = `${PACKAGE}-${match.platform}`;
    if (overridePath) {
      lines.push(
        `${PACKAGE}: could not load the native binary from NAPI_RS_NATIVE_LIBRARY_PATH=${overridePath} (${here}).`,
        `Unset NAPI_RS_NATIVE_LIBRARY_PATH to use the installed ${dep} package, or point it at a .node file built for ${match.platform}.`,
      );
    } else if (declared && !declared.includes(dep)) {
      lines.push(
        `${PACKAGE}: the native binary for this platform (${here}, Node.js ${nodeVersion}) could not be loaded:`,
        `this copy of ${PACKAGE} was packed without its platform packages (its package.json lists no`,
        `optionalDependencies on ${PACKAGE}-<platform>), so no install brings ${dep}. A plain`,
        `\`npm pack\` or \`npm publish\` of the repository leaves them out. To fix:`,
        `  - install ${PACKAGE} from the npm registry, or a tarball made with \`npm run pack:release\`;`,
        `  - or add the platform package yourself: npm install ${dep}@<the same version>.`,
      );
    } else {
      lines.push(
        `${PACKAGE}: the native binary for this platform (${here}, Node.js ${nodeVersion}) could not be loaded.`,
        `It comes in the optional dependency ${dep}, which is missing or failed to load. To fix:`,
        `  - reinstall without skipping optional dependencies: no --omit=optional / --no-optional, no`,
        `    "optional=false" in .npmrc; if the lockfile was made on another platform, delete`,
        `    node_modules and package-lock.json and run npm install again (https://github.com/npm/cli/issues/4828);`,
        `  - when installing for another machine (e.g. a Docker image), install on the target platform or`,
        `    pass npm's --os/--cpu/--libc flags for it (e.g. npm install --os=linux --cpu=${match.arch}${match.libc ? ` --libc=${match.libc}` : ''});`,
        `  - or build from source (needs Rust): \`npm ci && npm run build\` in a clone of the repository.`,
      );
      if (match.libc === 'glibc') lines.push(`The ${match.platform} binary needs glibc 2.17 or newer.`);
    }
  }
  if (nodeTooOld(nodeVersion)) {
    lines.push(
      `Node.js ${nodeVersion} is older than ${MIN_NODE.join('.')}, which ${PACKAGE} and @mastra/core need; npm skips`,
      `platform packages whose "engines" do not match, so upgrade Node.js first.`,
    );
  }
  // napi's loader also tries a WebAssembly build; a package without one need not list those.
  const hasWasm = Array.isArray(declared) && declared.includes(WASM_PACKAGE);
  const attempts = causeMessages(cause).filter((m) => hasWasm || !/wasm32-wasi|\.wasi(\.cjs|-browser)?\b|wasi-runtime|NAPI_RS_FORCE_WASI/.test(m));
  if (attempts.length) lines.push('Load attempts:', ...attempts.map((m) => `  - ${m}`));
  const error = new Error(lines.join('\n'));
  error.code = 'MASTRA_NATIVE_BINDING_NOT_FOUND';
  error.cause = cause;
  return error;
}

module.exports = { SUPPORTED_PLATFORMS, MIN_NODE, detectLibc, nativeLoadError };
