// Even validation across the three processors: a missing options object or a missing required
// option is a TypeError naming it and what is expected; a wrong type names the option; an
// unknown key is one warning with a "did you mean" (never an error: drop-in code that passes
// extra keys keeps working).
import { Workspace, LocalFilesystem } from '@mastra/core/workspace';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { SkillSearchProcessor, ToolCallFilter, ToolSearchProcessor } from '../../index.js';

const workspace = new Workspace({ filesystem: new LocalFilesystem({ basePath: mkdtempSync(join(tmpdir(), 'mnp-opts-')) }), skills: ['skills'] });

afterEach(() => vi.restoreAllMocks());

function warnings(construct: () => unknown): string[] {
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
  const made: any = construct();
  made?.dispose?.();
  return warn.mock.calls.map((c) => String(c[0]));
}

describe('missing options', () => {
  it('ToolSearchProcessor() names options and tools', () => {
    expect(() => new (ToolSearchProcessor as any)()).toThrow(TypeError);
    expect(() => new (ToolSearchProcessor as any)()).toThrow(/ToolSearchProcessor: options must be an object like \{ tools/);
    expect(() => new ToolSearchProcessor({} as any)).toThrow(/options\.tools must be an object mapping tool keys to Mastra tools; received undefined/);
  });

  it('SkillSearchProcessor() names options and workspace', () => {
    expect(() => new (SkillSearchProcessor as any)()).toThrow(new TypeError('SkillSearchProcessor: options must be an object with `workspace`; received undefined.'));
    expect(() => new SkillSearchProcessor({} as any)).toThrow(
      new TypeError('SkillSearchProcessor: options.workspace is required: a Mastra Workspace with skills; received undefined.'),
    );
    expect(() => new SkillSearchProcessor({ workspace: 'ws' } as any)).toThrow(/options\.workspace must be a Mastra Workspace with skills; received the string "ws"/);
  });

  it('a workspace without skills is accepted as by the host, with one warning', () => {
    const messages = warnings(() => new SkillSearchProcessor({ workspace: { skills: undefined } as any }));
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/options\.workspace has no skills, so search_skills and load_skill are not offered/);
  });

  it('ToolCallFilter() needs no options; a non-object is a TypeError', () => {
    expect(() => new ToolCallFilter()).not.toThrow();
    expect(() => new ToolCallFilter(5 as any)).toThrow(new TypeError('ToolCallFilter: options must be an object; received the number 5.'));
  });
});

describe('wrong types name the option and the expected value', () => {
  it.each([
    [{ search: { topK: '3' } }, 'options.search.topK must be a non-negative integer; received the string "3"'],
    [{ search: { topK: -1 } }, 'options.search.topK must be a non-negative integer; received the number -1'],
    [{ search: { minScore: Number.NaN } }, 'options.search.minScore must be a finite number; received the number NaN'],
    [{ ttl: '1h' }, 'options.ttl must be a number of milliseconds (0 or less: never expire); received the string "1h"'],
    [{ search: 'fast' }, 'options.search must be an object; received the string "fast"'],
    [{ search: { mode: 'fuzzy' } }, "options.search.mode must be 'compatible', 'enhanced' or 'hybrid'; received the string \"fuzzy\""],
  ])('SkillSearchProcessor %j', (extra, message) => {
    expect(() => new SkillSearchProcessor({ workspace, ...(extra as any) })).toThrow(new TypeError(`SkillSearchProcessor: ${message}.`));
  });

  it('SkillSearchProcessor keeps the values the host gives a meaning: topK 0, ttl 0 and negative', () => {
    for (const extra of [{ search: { topK: 0 } }, { ttl: 0 }, { ttl: -5 }, { search: { minScore: -1 } }]) {
      const p = new SkillSearchProcessor({ workspace, ...extra });
      p.dispose();
    }
  });
});

describe('unknown keys warn once, with a suggestion', () => {
  it('ToolSearchProcessor: a misspelt top-level and nested option', () => {
    const messages = warnings(() => new ToolSearchProcessor({ tools: {}, serach: { topK: 2 }, search: { topk: 3 } } as any));
    expect(messages).toEqual([
      'ToolSearchProcessor: unknown option `serach` is ignored. Did you mean `search`?',
      'ToolSearchProcessor: unknown option `search.topk` is ignored. Did you mean `search.topK`?',
    ]);
    // The same misspelling again (e.g. a processor built per request): no second warning.
    expect(warnings(() => new ToolSearchProcessor({ tools: {}, serach: {} } as any))).toEqual([]);
  });

  it('SkillSearchProcessor and ToolCallFilter', () => {
    expect(warnings(() => new SkillSearchProcessor({ workspace, ttL: 5 } as any))).toEqual([
      'SkillSearchProcessor: unknown option `ttL` is ignored. Did you mean `ttl`?',
    ]);
    expect(warnings(() => new ToolCallFilter({ excludes: ['weather'] } as any))).toEqual([
      'ToolCallFilter: unknown option `excludes` is ignored. Did you mean `exclude`?',
    ]);
  });

  it('a key unlike any option lists the known ones', () => {
    expect(warnings(() => new ToolCallFilter({ verbose: true } as any))).toEqual([
      'ToolCallFilter: unknown option `verbose` is ignored. Known options: `exclude`, `filterAfterToolSteps`, `preserveModelOutput`, `stage`.',
    ]);
  });

  it('the processor still works with the extra key (drop-in code keeps running)', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const filter = new ToolCallFilter({ exclude: ['weather'], someFutureOption: 1 } as any);
    expect((filter as any).exclude).toEqual(['weather']);
  });
});
