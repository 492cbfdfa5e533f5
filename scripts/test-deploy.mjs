#!/usr/bin/env node
// Deploy recipes (README "Deploying", apps in examples/deploy/): each app is installed from a local
// registry serving this checkout's release tarballs, built as a user builds it, and its build output
// moved to a folder with no node_modules above it. There only what the output needs is installed
// (nothing for Next's standalone output), the output is started, and a real Agent runs through it
// (search → load → use, scripted model). Checked: the answer, the tools offered per step, and that
// the native binary the process loaded is the one shipped inside the moved output. The docker recipe
// is built from its Dockerfile with podman and run as a container (scripts/lib/docker-recipe.mjs);
// it is skipped where podman is not installed.
//
//   npm run test:deploy                          # every recipe (~12 min; Linux x64, network to npm)
//   npm run test:deploy -- --only next-turbopack,esbuild-bundled
//   npm run test:deploy -- --only docker         # the Dockerfile, built and run with podman
//   npm run test:deploy -- --keep                # keep the temporary folders (and the docker image)
//
// Needs this machine's platform binary in npm/<platform>/ (npm run build:artifacts); a binary from
// `npm run build` in the repository root is copied there when it is missing.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { INSTALL_HINT, podmanInstalled, testDockerRecipe } from './lib/docker-recipe.mjs';
import { freePort, publishTarballs, startLocalRegistry, stopLocalRegistry } from './lib/registry.mjs';
import { log, pkg, root, run } from './lib/tools.mjs';
import { packRelease } from './pack-release.mjs';

const MASTRA_CORE = '1.71.0';
const ZOD = '4.1.12';
const EXPECTED_TEXT = 'Lisbon: 18 C, light rain';

const args = process.argv.slice(2);
const keep = args.includes('--keep');
const recipesDir = join(root, 'examples', 'deploy');
const all = readdirSync(recipesDir).filter((d) => existsSync(join(recipesDir, d, 'recipe.json'))).sort();
const only = args.includes('--only') ? args[args.indexOf('--only') + 1].split(',') : all;
const unknown = only.filter((r) => !all.includes(r));
if (unknown.length) {
  console.error(`unknown recipe ${unknown.join(', ')}; recipes: ${all.join(', ')}`);
  process.exit(2);
}
const p = pkg();
const work = mkdtempSync(join(tmpdir(), 'mnp-deploy-'));
const results = [];

function check(cond, message) {
  if (!cond) throw new Error(message);
}

function hostPlatform() {
  const { detectLibc } = createRequire(import.meta.url)('../js/native-error.js');
  if (process.platform === 'linux') return `linux-${process.arch}-${detectLibc() === 'musl' ? 'musl' : 'gnu'}`;
  if (process.platform === 'win32') return `win32-${process.arch}-msvc`;
  return `${process.platform}-${process.arch}`;
}

/** The release tarballs of the main package and this platform's package (the model is not needed). */
function releaseTarballs() {
  const platform = hostPlatform();
  const binary = `${p.name}.${platform}.node`;
  const target = join(root, 'npm', platform, binary);
  if (!existsSync(target)) {
    check(existsSync(join(root, binary)), `no ${binary} in npm/${platform}/ or the repository root: npm run build (or build:artifacts) first`);
    cpSync(join(root, binary), target);
    log(`copied ${binary} from the repository root into npm/${platform}/`);
  }
  const dest = join(work, 'release');
  const written = packRelease({ quiet: true, dest });
  const wanted = [`${p.name}-${p.version}.tgz`, `${p.name}-${platform}-${p.version}.tgz`];
  for (const f of wanted) check(written.some((w) => w.file === f), `pack:release wrote no ${f}`);
  return wanted.map((f) => join(dest, f));
}

function npmInstall(dir) {
  const started = Date.now();
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir });
  return ((Date.now() - started) / 1000).toFixed(0);
}

function writeProject(dir, registryUrl, manifest) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ private: true, type: 'module', ...manifest }, null, 2));
  writeFileSync(join(dir, '.npmrc'), `registry=${registryUrl}\naudit=false\nfund=false\nupdate-notifier=false\n`);
}

/** Runs the started output: a script's JSON line, or an HTTP GET once the server answers. */
async function runDeployed(recipe, dir) {
  const [command, ...rest] = recipe.start;
  const bin = command === 'node' ? process.execPath : command;
  if (!recipe.http) {
    const r = spawnSync(bin, rest, { cwd: dir, encoding: 'utf8', timeout: 120_000, env: { ...process.env, NAPI_RS_NATIVE_LIBRARY_PATH: '' } });
    check(r.status === 0, `exit ${r.status}:\n${r.stdout}\n${r.stderr}`);
    return JSON.parse(r.stdout.trim().split('\n').pop());
  }
  const port = await freePort();
  const server = spawn(bin, rest, { cwd: dir, env: { ...process.env, PORT: String(port), HOSTNAME: '127.0.0.1', NEXT_TELEMETRY_DISABLED: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  server.stdout.on('data', (d) => (output += d));
  server.stderr.on('data', (d) => (output += d));
  try {
    for (let i = 0; ; i++) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}${recipe.http}`);
        const body = await res.text();
        check(res.ok, `GET ${recipe.http}: ${res.status} ${body.slice(0, 500)}\n${output}`);
        return JSON.parse(body);
      } catch (error) {
        if (!/ECONNREFUSED|fetch failed/.test(String(error.cause ?? error))) throw error;
      }
      check(server.exitCode === null && i < 240, `the server did not answer:\n${output}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  } finally {
    server.kill('SIGTERM');
  }
}

async function testRecipe(name, registry) {
  const recipe = JSON.parse(readFileSync(join(recipesDir, name, 'recipe.json'), 'utf8'));
  const app = join(work, name, 'app');
  mkdirSync(app, { recursive: true });
  cpSync(join(recipesDir, name), app, { recursive: true, filter: (src) => basename(src) !== 'recipe.json' });
  const shared = join(app, recipe.shared ?? '.');
  mkdirSync(shared, { recursive: true });
  for (const f of readdirSync(join(recipesDir, 'shared'))) cpSync(join(recipesDir, 'shared', f), join(shared, f));
  const dependencies = { [p.name]: p.version, '@mastra/core': MASTRA_CORE, zod: ZOD, ...recipe.dependencies };
  writeProject(app, registry.url, { name: `deploy-${name}`, dependencies, devDependencies: recipe.devDependencies ?? {} });
  if (recipe.docker) {
    // Built and run as an image (scripts/lib/docker-recipe.mjs); skipped only without podman.
    if (!podmanInstalled()) {
      results.push({ name, ok: true, skipped: true, detail: INSTALL_HINT });
      log(`SKIP ${name}: ${INSTALL_HINT}`);
      return;
    }
    const detail = await testDockerRecipe({ app, registryUrl: registry.url, packageName: p.name, expectedText: EXPECTED_TEXT, keep });
    results.push({ name, ok: true, detail });
    log(`PASS ${name}: ${detail}`);
    return;
  }
  const installSecs = npmInstall(app);
  const started = Date.now();
  if (recipe.buildFails) {
    // A control: the configuration the README warns against must still fail, with this message.
    const r = spawnSync(recipe.build[0], recipe.build.slice(1), { cwd: app, encoding: 'utf8', env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', MASTRA_TELEMETRY_DISABLED: '1' } });
    const output = `${r.stdout}${r.stderr}`;
    check(r.status !== 0 && output.includes(recipe.buildFails), `the build was expected to fail with "${recipe.buildFails}"; exit ${r.status}:\n${output.slice(-2000)}`);
    const detail = `the build fails as the README says: "${recipe.buildFails}"`;
    results.push({ name, ok: true, detail });
    log(`PASS ${name}: ${detail}`);
    return;
  }
  run(recipe.build[0], recipe.build.slice(1), { cwd: app, env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', MASTRA_TELEMETRY_DISABLED: '1' } });
  const buildSecs = ((Date.now() - started) / 1000).toFixed(0);

  // The output, moved: nothing of the app's node_modules comes along.
  const deployed = join(work, 'deployed', name);
  mkdirSync(dirname(deployed), { recursive: true });
  cpSync(join(app, recipe.output), deployed, { recursive: true, verbatimSymlinks: true });
  let shippedSecs = '0';
  if (recipe.installOwn) {
    // The output carries its own package.json (mastra build): install it where it now is.
    writeFileSync(join(deployed, '.npmrc'), `registry=${registry.url}\naudit=false\nfund=false\nupdate-notifier=false\n`);
    rmSync(join(deployed, 'node_modules'), { recursive: true, force: true });
    shippedSecs = npmInstall(deployed);
  } else if (recipe.ship) {
    const shipped = Object.fromEntries(recipe.ship.dependencies.map((d) => [d, dependencies[d]]));
    writeProject(deployed, registry.url, { name: `deployed-${name}`, dependencies: shipped });
    shippedSecs = npmInstall(deployed);
  }
  rmSync(join(app, 'node_modules'), { recursive: true, force: true });

  const outcome = await runDeployed(recipe, deployed);
  check(outcome.text === EXPECTED_TEXT, `answer ${JSON.stringify(outcome.text)}`);
  check(JSON.stringify(outcome.offered.slice(0, 3)) === JSON.stringify([['load_tool', 'search_tools'], ['load_tool', 'search_tools'], ['get_weather', 'load_tool', 'search_tools']]), `offered ${JSON.stringify(outcome.offered)}`);
  if (process.platform === 'linux') {
    check(outcome.addons.length === 1, `loaded addons ${outcome.addons.join(', ')}`);
    const addon = outcome.addons[0];
    check(addon.startsWith(deployed + '/'), `loaded ${addon}, not from the deployed output ${deployed}`);
    if (recipe.addonIn) check(dirname(addon) === join(deployed, recipe.addonIn), `loaded ${addon}, expected it in ${recipe.addonIn}`);
  }
  const detail = `installed in ${installSecs} s, built in ${buildSecs} s${recipe.ship || recipe.installOwn ? `, output's own install ${shippedSecs} s` : ''}; agent answered "${outcome.text}", loaded <output>/${relative(deployed, outcome.addons[0] ?? '')}`;
  results.push({ name, ok: true, detail });
  log(`PASS ${name}: ${detail}`);
}

async function main() {
  log(`work folder ${work}`);
  const tarballs = releaseTarballs();
  const registry = await startLocalRegistry(join(work, 'verdaccio'), [p.name, `${p.name}-*`]);
  try {
    publishTarballs(registry, tarballs);
    for (const name of only) {
      try {
        await testRecipe(name, registry);
      } catch (error) {
        results.push({ name, ok: false, detail: error.message });
        log(`FAIL ${name}: ${error.message}`);
      }
    }
  } finally {
    stopLocalRegistry();
    if (!keep) rmSync(work, { recursive: true, force: true });
  }
  const failed = results.filter((r) => !r.ok);
  const skipped = results.filter((r) => r.skipped);
  log(`\ndeploy recipes: ${results.length - failed.length - skipped.length} passed, ${skipped.length} skipped, ${failed.length} failed`);
  process.exit(failed.length ? 1 : 0);
}

main().catch((error) => {
  stopLocalRegistry();
  console.error(error);
  process.exit(1);
});
