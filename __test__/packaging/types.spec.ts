// The public types, compiled as a user's code: __test__/packaging/types/usage.ts (CommonJS-mode import,
// index.d.ts) and the same file as usage.mts (ESM import, index.d.mts), with TypeScript 5.9, 6
// and 7, against the @mastra/core of the repo (1.59) and of every host in the matrix. Its lines
// marked ts-expect-error must error, so a type that grows too loose fails here too.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { HOST_VERSIONS, HOSTS_DIR } from '../support/hosts';

const root = join(__dirname, '..', '..');
const compilers = { '5.9': 'typescript-5.9', '6': 'typescript', '7': 'typescript-7' } as const;

/** A project folder with usage.ts, usage.mts and a NodeNext tsconfig, under `nodeModulesDir`. */
function stageTypeProject(nodeModulesDir: string): string {
  const dir = join(nodeModulesDir, '.mnp-type-check');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  cpSync(join(__dirname, 'types', 'usage.ts'), join(dir, 'usage.ts'));
  cpSync(join(__dirname, 'types', 'usage.ts'), join(dir, 'usage.mts'));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: true, types: [] },
      files: ['usage.ts', 'usage.mts'],
    }),
  );
  return dir;
}

function tsc(compiler: string, project: string) {
  const bin = join(root, 'node_modules', compiler, 'bin', 'tsc');
  const r = spawnSync(process.execPath, [bin, '-p', project], { encoding: 'utf8', timeout: 180_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('types with @mastra/core 1.59 (repo)', () => {
  const project = stageTypeProject(join(root, 'node_modules'));
  for (const [version, compiler] of Object.entries(compilers)) {
    it(`TypeScript ${version}`, () => {
      const r = tsc(compiler, project);
      expect(r.out).toBe('');
      expect(r.status).toBe(0);
    });
  }
});

describe('types against each host', () => {
  for (const host of HOST_VERSIONS) {
    it(`@mastra/core ${host}, TypeScript 7`, () => {
      const r = tsc(compilers['7'], stageTypeProject(join(HOSTS_DIR, host, 'node_modules')));
      expect(r.out).toBe('');
      expect(r.status).toBe(0);
    });
  }
  const latest = HOST_VERSIONS[HOST_VERSIONS.length - 1];
  it(`@mastra/core ${latest}, TypeScript 5.9`, () => {
    const r = tsc(compilers['5.9'], stageTypeProject(join(HOSTS_DIR, latest, 'node_modules', '.latest-5.9')));
    expect(r.out).toBe('');
    expect(r.status).toBe(0);
  });
});
