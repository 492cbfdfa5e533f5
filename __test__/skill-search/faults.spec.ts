// Bad input and faults: clear messages, no crash, other skills unaffected — next to the reference.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SkillSearchProcessor as RefProcessor } from '@mastra/core/processors';
import { LocalFilesystem, Workspace } from '@mastra/core/workspace';
import { SkillSearchProcessor } from '../../index.js';
import { call, fixtureSkills, step, tempSkillsWorkspace, type TempWorkspace } from '../support/skill-search';

const BIG_WORD = 'megadocument';
let fx: TempWorkspace;

beforeAll(() => {
  const skills = fixtureSkills().slice(0, 10);
  // ~2 MB SKILL.md whose rare word appears once near the end.
  const filler = 'lorem ipsum dolor sit amet consectetur '.repeat(54_000);
  skills.push({ name: 'huge-skill', description: 'A very large skill', body: `# Huge\n\n${filler}\n${BIG_WORD} here.` });
  fx = tempSkillsWorkspace(skills);
  const put = (rel: string, text: string) => {
    mkdirSync(join(fx.root, rel, '..'), { recursive: true });
    writeFileSync(join(fx.root, rel), text);
  };
  // Invalid front matter (unquoted ": " breaks YAML), an invalid name, and an unreadable SKILL.md
  // (a directory named SKILL.md: readFile fails even for root).
  put('skills/broken-yaml/SKILL.md', '---\nname: broken-yaml\ndescription: Bad: yaml here\n---\nbrokenword body');
  put('skills/Bad_Name/SKILL.md', '---\nname: Bad_Name\ndescription: invalid name\n---\nbrokenword body');
  mkdirSync(join(fx.root, 'skills/unreadable/SKILL.md'), { recursive: true });
});
afterAll(() => fx.cleanup());

async function both<T>(fn: (Ctor: any) => Promise<T>): Promise<[T, T]> {
  const err = vi.spyOn(console, 'error').mockImplementation(() => {});
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
  try {
    return [await fn(RefProcessor), await fn(SkillSearchProcessor)];
  } finally {
    err.mockRestore();
    warn.mockRestore();
  }
}

describe('faults', () => {
  it('no workspace skills: tools pass through, as in the reference', async () => {
    const root = fx.root;
    const [a, b] = await both(async Ctor => {
      const p = new Ctor({ workspace: new Workspace({ filesystem: new LocalFilesystem({ basePath: root }) }) });
      const tools = { mine: { id: 'mine' } };
      const { result, system } = await step(p, { tools });
      p.dispose();
      return { same: result.tools === tools, keys: Object.keys(result), system };
    });
    expect(b).toEqual(a);
    expect(b).toEqual({ same: true, keys: ['tools'], system: [] });
  });

  it('invalid or unreadable SKILL.md files are skipped; other skills search and load normally', async () => {
    const [a, b] = await both(async Ctor => {
      const p = new Ctor({ workspace: fx.make() });
      const { tools } = await step(p);
      const out = {
        broken: await call(tools.search_skills, { query: 'brokenword' }),
        good: await call(tools.search_skills, { query: 'pipelines' }),
        loadBroken: await call(tools.load_skill, { skillName: 'broken-yaml' }),
        loadUnreadable: await call(tools.load_skill, { skillName: 'unreadable' }),
        loadGood: await call(tools.load_skill, { skillName: 'deployment' }),
      };
      p.dispose();
      return out;
    });
    expect(b).toEqual(a);
    expect(b.broken.results).toEqual([]);
    expect(b.good.results[0].name).toBe('deployment');
    expect(b.loadBroken).toEqual({ success: false, message: 'Skill "broken-yaml" not found. Use search_skills to find available skills.' });
    expect(b.loadGood.success).toBe(true);
  });

  it('a 2 MB SKILL.md is indexed, found (same top result) and loaded whole', async () => {
    const [a, b] = await both(async Ctor => {
      const p = new Ctor({ workspace: fx.make() });
      const { tools } = await step(p, { threadId: 'big' });
      const found = await call(tools.search_skills, { query: BIG_WORD });
      const loaded = await call(tools.load_skill, { skillName: 'huge-skill' });
      const { system } = await step(p, { threadId: 'big', stepNumber: 1 });
      p.dispose();
      return { found, loaded, length: system[1].length };
    });
    expect(b).toEqual(a);
    expect(b.found.results[0].name).toBe('huge-skill');
    expect(b.length).toBeGreaterThan(2_000_000);
  });

  it('names with path separators get the reference messages; nothing escapes the skills folder', async () => {
    const names = ['../deployment', 'skills/../skills/deployment', 'a/b\\c', '/etc/passwd', 'skills\\deployment', 'deployment/'];
    const [a, b] = await both(async Ctor => {
      const p = new Ctor({ workspace: fx.make() });
      const { tools } = await step(p);
      const outs = [];
      for (const skillName of names) outs.push(await call(tools.load_skill, { skillName }));
      outs.push(await call(tools.search_skills, { query: '../../etc/passwd' }));
      outs.push(await call(tools.search_skills, { query: 'ci/cd' }));
      p.dispose();
      return outs;
    });
    expect(b).toEqual(a);
    expect(b[0].success).toBe(false);
  });

  it('a skill removed between search and load: clear not-found message; other skills unaffected', async () => {
    const local = tempSkillsWorkspace(fixtureSkills().slice(0, 6));
    try {
      const [a, b] = await both(async Ctor => {
        const ws = local.make();
        const p = new Ctor({ workspace: ws });
        const { tools } = await step(p);
        const found = await call(tools.search_skills, { query: 'pipelines' });
        await ws.skills!.removeSkill('deployment');
        const load = await call(tools.load_skill, { skillName: 'deployment' });
        const other = await call(tools.load_skill, { skillName: 'api-design' });
        const after = await call((await step(p)).tools.search_skills, { query: 'pipelines' });
        // Re-add so the next processor sees the same starting state.
        await ws.skills!.addSkill('skills/deployment');
        p.dispose();
        return { found, load, other, after };
      });
      expect(b).toEqual(a);
      expect(b.found.results[0].name).toBe('deployment');
      expect(b.load).toEqual({ success: false, message: 'Skill "deployment" not found. Use search_skills to find available skills.' });
      expect(b.other.success).toBe(true);
      expect(b.after.results).toEqual([]);
    } finally {
      local.cleanup();
    }
  });

  it('a skill whose get() throws is left out of the index; the rest still search', async () => {
    const skills = [
      { name: 'good-one', description: 'fine', instructions: 'sharedword good' },
      { name: 'bad-one', description: 'explodes', instructions: 'sharedword bad' },
    ];
    const mock = {
      list: async () => skills.map(s => ({ name: s.name, description: s.description, path: `skills/${s.name}` })),
      get: async (name: string) => {
        if (name === 'bad-one') throw new Error('disk on fire');
        return skills.find(s => s.name === name) ?? null;
      },
      search: async () => [],
      maybeRefresh: async () => {},
    };
    const p = new SkillSearchProcessor({ workspace: { skills: mock } as any });
    const out = await call((await step(p)).tools.search_skills, { query: 'sharedword' });
    expect(out.results.map((r: any) => r.name)).toEqual(['good-one']);
    // Its name and description stay searchable.
    expect((await call((await step(p)).tools.search_skills, { query: 'explodes' })).results.map((r: any) => r.name)).toEqual(['bad-one']);
    p.dispose();
  });

  it('a failing list() surfaces as the search error, like the reference; processInputStep is unaffected', async () => {
    const mock = {
      list: async () => {
        throw new Error('list failed');
      },
      get: async () => null,
      search: async () => {
        throw new Error('list failed');
      },
      maybeRefresh: async () => {},
    };
    for (const Ctor of [RefProcessor, SkillSearchProcessor]) {
      const p = new Ctor({ workspace: { skills: mock } as any });
      const { tools } = await step(p);
      await expect(tools.search_skills.execute({ query: 'x' }, {})).rejects.toThrow('list failed');
      p.dispose();
    }
  });
});

describe('process lifetime', () => {
  it('an undisposed processor with the default ttl does not keep Node alive', () => {
    const script = `
      const { SkillSearchProcessor } = require(${JSON.stringify(join(__dirname, '..', '..', 'index.js'))});
      const p = new SkillSearchProcessor({ workspace: { skills: undefined } });
      p.processInputStep({ tools: {}, messageList: null, stepNumber: 0 }).then(() => console.log('done'));
    `;
    const started = Date.now();
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30_000 });
    expect(r.stdout.trim()).toBe('done');
    expect(r.status).toBe(0);
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});
