// A real local npm registry for install tests (test-artifacts, test-deploy): verdaccio, installed
// into .tools/verdaccio on first use, on a free loopback port. Our packages are served only from
// what is published to it; everything else is proxied from the configured upstream registry.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { capture, log, run, toolsDir } from './tools.mjs';

const VERDACCIO = '6.8.0'; // 6.10 needs Node 22; node-fetch pinned to 2.7.0 (see .tools/verdaccio/package.json)

let verdaccio;

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

function ensureVerdaccio() {
  const dir = join(toolsDir, 'verdaccio');
  const bin = join(dir, 'node_modules', 'verdaccio', 'bin', 'verdaccio');
  if (existsSync(bin)) return bin;
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ private: true, dependencies: { verdaccio: VERDACCIO }, overrides: { 'node-fetch': '2.7.0' } }, null, 2),
  );
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir });
  return bin;
}

/**
 * Starts verdaccio with its storage in `dir`; `local` are the package-name patterns served only
 * from what is published here (never proxied). Resolves `{ url, npmrc }`: the registry URL and
 * a userconfig file with a token that may publish.
 */
export async function startLocalRegistry(dir, local) {
  const bin = ensureVerdaccio();
  const port = await freePort();
  mkdirSync(join(dir, 'storage'), { recursive: true });
  const upstream = capture('npm', ['config', 'get', 'registry']).trim() || 'https://registry.npmjs.org/';
  const ownPackages = local.map((pattern) => `  '${pattern}':\n    access: $all\n    publish: $authenticated\n`).join('');
  writeFileSync(
    join(dir, 'config.yaml'),
    `storage: ${join(dir, 'storage')}
auth:
  htpasswd:
    file: ${join(dir, 'htpasswd')}
    max_users: 10
uplinks:
  upstream:
    url: ${upstream}
    timeout: 60s
    maxage: 30m
packages:
${ownPackages}  '@*/*':
    access: $all
    publish: $authenticated
    proxy: upstream
  '**':
    access: $all
    publish: $authenticated
    proxy: upstream
server:
  keepAliveTimeout: 60
# the model package's tarball is ~28 MB (the default limit is 10 MB)
max_body_size: 100mb
logs: { type: stdout, format: pretty, level: warn }
listen: 127.0.0.1:${port}
`,
  );
  const url = `http://127.0.0.1:${port}/`;
  verdaccio = spawn(process.execPath, [bin, '--config', join(dir, 'config.yaml')], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_ENV: 'production' },
  });
  let output = '';
  verdaccio.stdout.on('data', (d) => (output += d));
  verdaccio.stderr.on('data', (d) => (output += d));
  for (let i = 0; ; i++) {
    try {
      const r = await fetch(`${url}-/ping`);
      if (r.ok) break;
    } catch {
      // not up yet
    }
    if (verdaccio.exitCode !== null || i > 120) throw new Error(`verdaccio did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  // A user for publishing (the packages are served to anyone).
  const res = await fetch(`${url}-/user/org.couchdb.user:release-test`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'release-test', password: 'release-test-password', type: 'user', roles: [] }),
  });
  const { token } = await res.json();
  if (!token) throw new Error(`verdaccio gave no token (${res.status})`);
  const npmrc = join(dir, 'publish.npmrc');
  writeFileSync(npmrc, `registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\nupdate-notifier=false\n`);
  log(`verdaccio ${VERDACCIO} on ${url} (pid ${verdaccio.pid})`);
  return { url, npmrc };
}

export function stopLocalRegistry() {
  if (verdaccio && verdaccio.exitCode === null) verdaccio.kill('SIGTERM');
}

/** Publishes `tarballs` (paths) to the registry, longest name first (platform packages before the main one). */
export function publishTarballs(registry, tarballs) {
  for (const file of [...tarballs].sort((a, b) => b.length - a.length)) {
    run('npm', ['publish', file, '--userconfig', registry.npmrc, '--registry', registry.url, '--provenance=false', '--loglevel=warn']);
  }
}
