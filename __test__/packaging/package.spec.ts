// The published entry points: CommonJS require, ESM import, and the exported names.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..');

function node(args: string[]) {
  const r = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, out: r.stdout.trim(), err: r.stderr };
}

const exported = ['SkillSearchProcessor', 'ToolCallFilter', 'ToolSearchProcessor', 'memoryStore', 'redisEmbeddingCache', 'redisLearnStore', 'redisStore'];

describe('package entry points', () => {
  it('require() by package name gives the three processors and the two state stores', () => {
    const r = node(['-e', "const m = require('mastra-native-processors'); console.log(JSON.stringify(Object.keys(m).sort()))"]);
    expect(r.err).toBe('');
    expect(JSON.parse(r.out)).toEqual(exported);
  });

  it('import by package name gives the same processors as require, bound to the ESM host modules', () => {
    // ESM classes are subclasses of the CommonJS ones (one implementation, one native instance);
    // they differ only in building meta-tools with the createTool/z that `import` resolves.
    const code =
      "import * as m from 'mastra-native-processors'; import { createRequire } from 'node:module';" +
      "const c = createRequire(import.meta.url)('mastra-native-processors');" +
      'console.log(JSON.stringify([Object.keys(m).filter(k => k !== "default").sort(),' +
      ' m.ToolSearchProcessor.prototype instanceof c.ToolSearchProcessor,' +
      ' m.SkillSearchProcessor.prototype instanceof c.SkillSearchProcessor,' +
      ' m.ToolCallFilter === c.ToolCallFilter && m.redisStore === c.redisStore && m.memoryStore === c.memoryStore,' +
      ' m.ToolSearchProcessor.name, m.SkillSearchProcessor.name]))';
    const r = node(['--input-type=module', '-e', code]);
    expect(r.err).toBe('');
    expect(JSON.parse(r.out)).toEqual([exported, true, true, true, 'ToolSearchProcessor', 'SkillSearchProcessor']);
  });

  it("an ESM app loads one copy of Mastra's tools module and our meta-tools are its Tool class", () => {
    const r = node([join('__test__', 'fixtures', 'dual-package-app.mjs'), 'esm']);
    expect(r.err).toBe('');
    expect(JSON.parse(r.out)).toEqual({ metaToolsAreAppTools: [true, true, true, true], cjsToolsModuleLoaded: false });
  });

  it("a CommonJS app's meta-tools are its (CommonJS) Tool class", () => {
    const r = node([join('__test__', 'fixtures', 'dual-package-app.mjs'), 'cjs']);
    expect(r.err).toBe('');
    expect(JSON.parse(r.out)).toEqual({ metaToolsAreAppTools: [true, true, true, true], cjsToolsModuleLoaded: true });
  });

  it('publint finds nothing to report', () => {
    const r = node([join(root, 'node_modules', 'publint', 'src', 'cli.js'), '--strict', '.']);
    expect(r.out).toContain('All good!');
    expect(r.status).toBe(0);
  });

  it('arethetypeswrong finds no problem for any resolution mode', () => {
    const attw = join(root, 'node_modules', '@arethetypeswrong', 'cli', 'dist', 'index.js');
    const r = node([attw, '--pack', '.', '--format', 'json']);
    const report = JSON.parse(r.out);
    expect(report.analysis.problems ?? []).toEqual([]);
    expect(r.status).toBe(0);
  });
});
