// The Docker recipe of test:deploy (examples/deploy/docker): builds the recipe's own Dockerfile with
// podman (no Docker daemon needed), its npm install reaching the local registry that serves this
// checkout's release tarballs, starts the image, runs the agent through it and checks the image.
//
// Base images: the Dockerfile's `node:22-bookworm-slim` is used when podman has it. Where it is
// missing (no access to Docker Hub), a stand-in is made once and kept in podman's image store: a
// Debian bookworm root file system (mmdebstrap) with Node 22 (npm package node-linux-<cpu>) and
// npm 10 laid out as the official image lays them out (/usr/local, user `node` 1000:1000).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './registry.mjs';
import { capture, log, run, toolsDir, which } from './tools.mjs';

export const NODE_IMAGE = 'docker.io/library/node:22-bookworm-slim';
const DEBIAN_IMAGE = 'localhost/debian:bookworm';
const NODE_STANDIN = { node: '22', npm: '10' };

export const INSTALL_HINT =
  'podman is not installed; to run the docker recipe: apt-get install -y podman runc mmdebstrap (Debian/Ubuntu; dnf install podman elsewhere)';

/** Global flags: runc and cgroupfs work in VMs where crun or the systemd cgroup manager do not. */
function podmanGlobals() {
  return [...(which('runc') ? ['--runtime', 'runc'] : []), '--cgroup-manager=cgroupfs'];
}
const ULIMITS = ['--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=4096:4096'];

export function podmanInstalled() {
  return Boolean(which('podman'));
}

function podman(args, opts) {
  return run('podman', [...podmanGlobals(), ...args], opts);
}

function podmanOut(args) {
  return capture('podman', [...podmanGlobals(), ...args]);
}

function danglingImages() {
  return new Set(podmanOut(['images', '-q', '--no-trunc', '--filter', 'dangling=true']).split('\n').filter(Boolean));
}

/** `podman build`, then removes the untagged images it left (its stages), not others'. */
function podmanBuild(args) {
  const before = danglingImages();
  try {
    podman(['build', ...args]);
  } finally {
    const left = [...danglingImages()].filter((id) => !before.has(id));
    if (left.length) spawnSync('podman', [...podmanGlobals(), 'rmi', ...left], { stdio: 'ignore' });
  }
}

function imageExists(name) {
  return spawnSync('podman', [...podmanGlobals(), 'image', 'exists', name]).status === 0;
}

/** `npm pack <spec>` into `dir` (cached there); returns the tarball path. */
function npmPackOnce(spec, dir) {
  mkdirSync(dir, { recursive: true });
  const stamp = join(dir, `${spec.replace(/[^\w.-]/g, '_')}.tarball`);
  if (existsSync(stamp) && existsSync(join(dir, readFileSync(stamp, 'utf8')))) return join(dir, readFileSync(stamp, 'utf8'));
  const [{ filename }] = JSON.parse(capture('npm', ['pack', spec, '--json', '--pack-destination', dir]));
  writeFileSync(stamp, filename);
  return join(dir, filename);
}

/** Makes the stand-in images where they are missing; returns seconds spent (0 when cached). */
export function ensureBaseImages() {
  if (imageExists(NODE_IMAGE)) return 0;
  const started = Date.now();
  const dir = join(toolsDir, 'docker-base');
  mkdirSync(dir, { recursive: true });
  if (!imageExists(DEBIAN_IMAGE)) {
    if (!which('mmdebstrap')) throw new Error(`${NODE_IMAGE} is missing and mmdebstrap (to make a stand-in) is not installed: apt-get install -y mmdebstrap, or podman pull ${NODE_IMAGE}`);
    const rootfs = join(dir, 'bookworm-rootfs.tar');
    log(`${NODE_IMAGE} is not in podman's store: making a stand-in (Debian bookworm + Node ${NODE_STANDIN.node})`);
    run('mmdebstrap', ['--variant=minbase', '--include=ca-certificates', '--quiet', 'bookworm', rootfs]);
    podman(['import', rootfs, DEBIAN_IMAGE]);
    rmSync(rootfs, { force: true });
  }
  const cpu = { x64: 'x64', arm64: 'arm64' }[process.arch];
  if (!cpu) throw new Error(`no Node stand-in for ${process.arch}: podman pull ${NODE_IMAGE}`);
  const context = join(dir, 'node-context');
  rmSync(context, { recursive: true, force: true });
  mkdirSync(context, { recursive: true });
  for (const [name, spec] of [['node', `node-linux-${cpu}@${NODE_STANDIN.node}`], ['npm', `npm@${NODE_STANDIN.npm}`]]) {
    mkdirSync(join(context, name));
    run('tar', ['-xzf', npmPackOnce(spec, join(dir, 'packages')), '-C', join(context, name), '--strip-components=1']);
  }
  // The official image's layout: node and npm under /usr/local, a `node` user with uid/gid 1000.
  writeFileSync(
    join(context, 'Containerfile'),
    `FROM ${DEBIAN_IMAGE}
COPY node/bin/node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\
 && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \\
 && node --version && npm --version
LABEL org.opencontainers.image.description="stand-in for node:22-bookworm-slim made by scripts/lib/docker-recipe.mjs"
CMD ["node"]
`,
  );
  podmanBuild(['--network', 'host', ...ULIMITS, '-t', NODE_IMAGE, context]);
  rmSync(context, { recursive: true, force: true });
  return Math.round((Date.now() - started) / 1000);
}

function check(cond, message) {
  if (!cond) throw new Error(message);
}

/**
 * Builds `app` (a copy of the recipe folder with package.json and .npmrc written by test:deploy)
 * with its Dockerfile, runs it and checks it. Returns the detail line for the report.
 */
export async function testDockerRecipe({ app, registryUrl, packageName, expectedText, keep }) {
  const baseSecs = ensureBaseImages();
  // A lockfile, as a user's app has one (npm ci needs it); made on the host, resolved in the image.
  run('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: app });
  // Any "resolved" URL as a user's lockfile has it (registry.npmjs.org; npm may omit them): npm in
  // the image then fetches from the registry it is given (the build arg NPM_CONFIG_REGISTRY), the
  // only one with our packages.
  const lockfile = join(app, 'package-lock.json');
  const npmjs = readFileSync(lockfile, 'utf8').replaceAll(`"resolved": "${registryUrl}`, '"resolved": "https://registry.npmjs.org/');
  check(!npmjs.includes(registryUrl.slice(0, -1)), `package-lock.json still names the local registry ${registryUrl}`);
  writeFileSync(lockfile, npmjs);
  const tag = `localhost/mnp-deploy-docker:${process.pid}`;
  const name = `mnp-deploy-docker-${process.pid}`;
  let started = Date.now();
  // --format docker keeps HEALTHCHECK (the OCI format has no such field); --network host lets
  // npm ci reach the local registry on 127.0.0.1.
  podmanBuild(['--format', 'docker', '--network', 'host', ...ULIMITS, '--build-arg', `NPM_CONFIG_REGISTRY=${registryUrl}`, '-t', tag, '-f', join(app, 'Dockerfile'), app]);
  const buildSecs = Math.round((Date.now() - started) / 1000);
  try {
    const [image] = JSON.parse(podmanOut(['image', 'inspect', tag]));
    check(image.Config.User === 'node', `image user ${JSON.stringify(image.Config.User)}, expected node`);
    const healthcheck = image.Healthcheck ?? image.Config.Healthcheck;
    check(healthcheck?.Test?.length, `image has no HEALTHCHECK: ${JSON.stringify(image.Config)}`);
    const sizeMb = Math.round(image.Size / 1e6);

    const port = await freePort();
    started = Date.now();
    podman(['run', '-d', '--name', name, '--network', 'host', ...ULIMITS, '-e', `PORT=${port}`, tag]);
    const outcome = await getJson(`http://127.0.0.1:${port}/run`, name);
    const runSecs = ((Date.now() - started) / 1000).toFixed(1);

    check(outcome.text === expectedText, `answer ${JSON.stringify(outcome.text)}`);
    const offered = outcome.steps.map((s) => s.offered.join(','));
    const meta = 'load_skill,load_tool,search_skills,search_tools';
    check(offered.length === 6 && offered.slice(0, 4).every((o) => o === meta) && offered.slice(4).every((o) => o === `get_weather,${meta}`), `offered ${JSON.stringify(offered)}`);
    check(outcome.steps.slice(2).every((s) => s.skillInPrompt) && !outcome.steps[0].skillInPrompt, `the loaded skill in the prompt per step: ${outcome.steps.map((s) => s.skillInPrompt)}`);
    // ToolCallFilter({ filterAfterToolSteps: 1 }): the model sees only the latest tool step.
    check(outcome.steps.every((s, i) => s.toolResults === Math.min(i, 1)), `tool results in the prompt per step: ${outcome.steps.map((s) => s.toolResults)}`);
    check(outcome.uid !== 0, 'the server runs as root');

    const platform = `linux-${process.arch}-gnu`;
    const binary = `/app/node_modules/${packageName}-${platform}/${packageName}.${platform}.node`;
    check(JSON.stringify(outcome.addons) === JSON.stringify([binary]), `loaded addons ${JSON.stringify(outcome.addons)}, expected ${binary}`);
    const nodeFiles = podmanOut(['exec', '--user', 'root', name, 'find', '/', '-xdev', '-name', '*.node', '-type', 'f']).trim().split('\n').filter(Boolean);
    check(JSON.stringify(nodeFiles) === JSON.stringify([binary]), `.node files in the image: ${JSON.stringify(nodeFiles)}, expected only ${binary}`);
    const health = spawnSync('podman', [...podmanGlobals(), 'healthcheck', 'run', name], { encoding: 'utf8' });
    check(health.status === 0, `HEALTHCHECK failed (exit ${health.status}): ${health.stdout}${health.stderr}`);

    const baseNote = baseSecs ? `, stand-in base images made in ${baseSecs} s` : '';
    return `image built in ${buildSecs} s (${sizeMb} MB${baseNote}); container answered in ${runSecs} s as uid ${outcome.uid}: "${outcome.text}" (skill, tool search, filter), healthy, one binary ${binary}`;
  } finally {
    spawnSync('podman', [...podmanGlobals(), 'rm', '-f', '-t', '2', name], { stdio: 'ignore' });
    if (!keep) spawnSync('podman', [...podmanGlobals(), 'rmi', '-f', tag], { stdio: 'ignore' });
  }
}

/** GETs `url` until the container's server answers (or the container stops). */
async function getJson(url, container) {
  for (let i = 0; ; i++) {
    try {
      const res = await fetch(url);
      const body = await res.text();
      check(res.ok, `GET ${url}: ${res.status} ${body.slice(0, 2000)}`);
      return JSON.parse(body);
    } catch (error) {
      if (!/ECONNREFUSED|fetch failed/.test(String(error.cause ?? error))) throw error;
    }
    const state = podmanOut(['inspect', '--format', '{{.State.Status}}', container]).trim();
    if (state !== 'running' || i > 240) {
      const logs = spawnSync('podman', [...podmanGlobals(), 'logs', container], { encoding: 'utf8' });
      throw new Error(`the container did not answer (${state}):\n${logs.stdout}${logs.stderr}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}
