// The README's "Using it in tests" configurations, run for real: examples/testing/ holds one
// Agent test and the Vitest and Jest configs the README shows; the package is staged into
// examples/testing/node_modules as an install would put it.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

import { stagePackageInto } from '../../scripts/hosts.mjs';

const root = join(__dirname, '..', '..');
const example = join(root, 'examples', 'testing');

function run(args: string[], extraEnv: Record<string, string> = {}) {
  // A clean environment for the child runner: not inside this Vitest worker, no colours.
  const env: Record<string, string | undefined> = { ...process.env, ...extraEnv, FORCE_COLOR: '0', NO_COLOR: '1', NODE_ENV: 'test' };
  for (const key of Object.keys(env)) if (key.startsWith('VITEST')) delete env[key];
  const r = spawnSync(process.execPath, args, { cwd: example, encoding: 'utf8', timeout: 180_000, env });
  return { status: r.status, out: `${r.stdout}\n${r.stderr}` };
}

beforeAll(() => stagePackageInto(example));

describe('Using it in tests (README)', () => {
  const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
  for (const pool of ['forks', 'threads', 'vmThreads']) {
    it(`Vitest, pool ${pool}`, () => {
      const r = run([vitest, 'run', '--config', 'vitest.config.mts', '--pool', pool]);
      expect(r.out).toMatch(/Tests\s+1 passed/);
      expect(r.status).toBe(0);
    });
  }

  const jest = join(root, 'node_modules', 'jest', 'bin', 'jest.js');
  for (const config of ['jest.config.mjs', 'jest.ts-jest.config.mjs']) {
    it(`Jest in ESM mode, ${config}`, () => {
      const r = run([jest, '-c', config], { NODE_OPTIONS: '--experimental-vm-modules' });
      expect(r.out).toMatch(/Tests:\s+1 passed, 1 total/);
      expect(r.status).toBe(0);
    });
  }
});
