#!/usr/bin/env node
// Keeps every release version in step with package.json: run by npm's `version` lifecycle
// (`npm version patch|minor|major|x.y.z`), after package.json is bumped and before the version commit,
// which then includes the files changed here.
//   - npm/<platform>/package.json versions: `napi version`;
//   - the version the generated loader (binding.js) embeds for its installed-package check: the same
//     text `napi build` writes from package.json, updated here so a maintainer without the release
//     toolchain can bump (the next `napi build` regenerates it identically).
// Not the model package (packages/model-multilingual): ~30 MB that changes rarely, so it keeps its own
// version, bumped by hand when model.bin changes; pack:release checks it is inside the main package's
// optional peer range, and the release workflow publishes it only when that version is new on npm.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { checkVersions } from './pack-release.mjs';
import { log, pkg, root, run } from './lib/tools.mjs';

const { version } = pkg();
run(join(root, 'node_modules', '.bin', 'napi'), ['version'], { cwd: root });
const file = join(root, 'binding.js');
const before = readFileSync(file, 'utf8');
const after = before
  .replace(/bindingPackageVersion !== '[^']+'/g, `bindingPackageVersion !== '${version}'`)
  .replace(/expected [^ `]+ but got \$\{bindingPackageVersion\}/g, `expected ${version} but got \${bindingPackageVersion}`);
if (after !== before) writeFileSync(file, after);
checkVersions();
// Into npm version's commit (when run inside the git checkout).
if (spawnSync('git', ['rev-parse', '--show-toplevel'], { cwd: root, encoding: 'utf8' }).stdout?.trim() === root) {
  run('git', ['add', 'npm', 'binding.js'], { cwd: root });
}
log(`all packages at ${version}: package.json, npm/*/package.json, binding.js`);
