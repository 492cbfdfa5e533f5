// The published entry points: CommonJS require, ESM import, and the exported names.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '..');

function node(args: string[]) {
  const r = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, out: r.stdout.trim(), err: r.stderr };
}

const exported = ['SkillSearchProcessor', 'ToolCallFilter', 'ToolSearchProcessor'];

describe('package entry points', () => {
  it('require() by package name gives the three processors', () => {
    const r = node(['-e', "const m = require('mastra-native-processors'); console.log(JSON.stringify(Object.keys(m).sort()))"]);
    expect(r.err).toBe('');
    expect(JSON.parse(r.out)).toEqual(exported);
  });

  it('import by package name gives the same classes as require', () => {
    const code =
      "import * as m from 'mastra-native-processors'; import { createRequire } from 'node:module';" +
      "const c = createRequire(import.meta.url)('mastra-native-processors');" +
      "console.log(JSON.stringify([Object.keys(m).filter(k => k !== 'default').sort(), m.ToolSearchProcessor === c.ToolSearchProcessor]))";
    const r = node(['--input-type=module', '-e', code]);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.out)).toEqual([exported, true]);
  });

  it('the TypeScript declarations type-check a typical Agent setup and reject bad options', () => {
    // __test__/types/usage.ts uses every exported type; its @ts-expect-error lines must error.
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const r = node([tsc, '-p', join('__test__', 'types', 'tsconfig.json')]);
    expect(r.out + r.err).toBe('');
    expect(r.status).toBe(0);
  });
});
