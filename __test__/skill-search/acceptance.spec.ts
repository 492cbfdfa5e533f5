// SkillSearchProcessor's numbered acceptance cases (numbered as in §12 of the project's original
// specification, which is not in this repository: each test states its expectation; 1–28 here,
// the Agent-level cases in agent.spec.ts), each run against @mastra/core@1.59.0 and ours where
// both apply.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { MessageList } from '@mastra/core/agent';
import { RequestContext } from '@mastra/core/request-context';
import { SkillSearchProcessor as RefProcessor } from '@mastra/core/processors';
import { SkillSearchProcessor } from '../../index.js';
import { NativeSkillIndex } from '../../binding.js';
import { call, contextFor, step, tempSkillsWorkspace, type FixtureSkill, type TempWorkspace } from '../support/skill-search';

const INSTRUCTION =
  "To discover available skills, call search_skills with a keyword query. To load a skill's instructions, call load_skill with the skill name. Loaded skills provide context and instructions for the conversation.";

type MockSkill = { name: string; description?: string; instructions: string; references?: string[]; refs?: Record<string, string> };

const MOCK_SKILLS: MockSkill[] = [
  { name: 'api-design', description: 'API design guidelines', instructions: '# API Design\n\nUse REST conventions for every api endpoint.' },
  { name: 'testing', description: 'Testing best practices', instructions: '# Testing\n\nWrite unit tests first.' },
  { name: 'deployment', description: 'How to deploy', instructions: '# Deployment\n\nUse CI/CD pipelines to deploy.' },
];

/** Upstream-style mock: `{ skills: { list, get, search, maybeRefresh } }`. */
function mockWorkspace(skills: MockSkill[] = MOCK_SKILLS, searchResults?: any[]) {
  const mock = {
    list: vi.fn(async () => skills.map(s => ({ name: s.name, description: s.description, path: `skills/${s.name}` }))),
    get: vi.fn(async (name: string) => {
      const s = skills.find(x => x.name === name || `skills/${x.name}` === name);
      return s ? { name: s.name, description: s.description, path: `skills/${s.name}`, instructions: s.instructions, references: s.references ?? [] } : null;
    }),
    getReference: vi.fn(async (name: string, ref: string) => skills.find(x => x.name === name)?.refs?.[ref.replace(/^references\//, '')] ?? null),
    search: vi.fn(async (query: string) =>
      searchResults ??
      skills
        .filter(s => s.instructions.toLowerCase().includes(query.toLowerCase()))
        .map(s => ({ skillName: s.name, skillPath: `skills/${s.name}`, source: 'SKILL.md', content: s.instructions, score: 1 })),
    ),
    maybeRefresh: vi.fn(async () => {}),
  };
  return { workspace: { skills: mock } as any, mock };
}

const both = (options: Record<string, unknown>) => [
  ['reference', new RefProcessor(options as any)],
  ['ours', new SkillSearchProcessor(options as any)],
] as const;

const created: Array<{ dispose(): void }> = [];
function make<T extends { dispose(): void }>(p: T): T {
  created.push(p);
  return p;
}
afterEach(() => {
  for (const p of created.splice(0)) p.dispose();
  vi.restoreAllMocks();
});

describe('§12 acceptance cases', () => {
  it('1. fields, no processInput, no execute', () => {
    for (const [, p] of both({ workspace: mockWorkspace().workspace })) {
      make(p);
      expect(p.id).toBe('skill-search');
      expect(p.name).toBe('Skill Search Processor');
      expect(p.description).toBe('Enables on-demand skill discovery and loading via search');
      expect(p.providesSkillDiscovery).toBe('on-demand');
      expect((p as any).processInput).toBeUndefined();
      expect('execute' in p).toBe(false);
    }
    const [[, ref], [, ours]] = both({ workspace: mockWorkspace().workspace });
    make(ref);
    make(ours);
    expect(Object.keys(ours)).toEqual(Object.keys(ref));
  });

  it('2. topK/minScore: reference forwards them to skills.search; ours applies them to its index', async () => {
    const { workspace, mock } = mockWorkspace();
    const ref = make(new RefProcessor({ workspace, search: { topK: 10, minScore: 0.5 } }));
    await call((await step(ref)).tools.search_skills, { query: 'api' });
    expect(mock.search).toHaveBeenCalledWith('api', { topK: 10, minScore: 0.5 });
    const refDefault = make(new RefProcessor({ workspace }));
    await call((await step(refDefault)).tools.search_skills, { query: 'api' });
    expect(mock.search).toHaveBeenLastCalledWith('api', { topK: 5, minScore: 0 });

    // Ours: same config fields; search runs on the native index and never calls skills.search.
    mock.search.mockClear();
    const ours = make(new SkillSearchProcessor({ workspace, search: { topK: 10, minScore: 0.5 } }));
    expect((ours as any).searchConfig).toEqual({ topK: 10, minScore: 0.5 });
    expect((make(new SkillSearchProcessor({ workspace })) as any).searchConfig).toEqual({ topK: 5, minScore: 0 });
    const out = await call((await step(ours)).tools.search_skills, { query: 'api' });
    expect(mock.search).not.toHaveBeenCalled();
    expect(out.results.length).toBeGreaterThan(0);
    expect(out.results.every((r: any) => r.score >= 0.5)).toBe(true);
    const strict = make(new SkillSearchProcessor({ workspace, search: { minScore: 1000 } }));
    expect(await call((await step(strict)).tools.search_skills, { query: 'api' })).toEqual({
      results: [],
      message: 'No skills found matching "api". Try different keywords.',
    });
  });

  it('3. result tools contain search_skills and load_skill', async () => {
    for (const [, p] of both({ workspace: mockWorkspace().workspace })) {
      const { tools } = await step(make(p));
      expect(Object.keys(tools)).toEqual(['search_skills', 'load_skill']);
      expect(tools.search_skills.id).toBe('search_skills');
      expect(tools.load_skill.id).toBe('load_skill');
    }
  });

  it('4. existing tools are preserved ahead of the meta-tools', async () => {
    const existing_tool = { id: 'existing_tool', description: 'x', execute: async () => 1 };
    for (const [, p] of both({ workspace: mockWorkspace().workspace })) {
      const { tools } = await step(make(p), { tools: { existing_tool } });
      expect(Object.keys(tools)).toEqual(['existing_tool', 'search_skills', 'load_skill']);
      expect(tools.existing_tool).toBe(existing_tool);
    }
  });

  it('5. a user tool named like a meta-tool is shadowed in place with one warning', async () => {
    for (const [, p] of both({ workspace: mockWorkspace().workspace })) {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
      const user = { id: 'load_skill', description: 'mine' };
      const { tools } = await step(make(p), { tools: { my_tool: {}, load_skill: user } });
      expect(Object.keys(tools)).toEqual(['my_tool', 'load_skill', 'search_skills']);
      expect(tools.load_skill).not.toBe(user);
      expect(tools.load_skill.id).toBe('load_skill');
      expect(warn.mock.calls).toEqual([['[SkillSearchProcessor] User tool "load_skill" conflicts with meta-tool and will be shadowed.']]);
      warn.mockRestore();
    }
  });

  it('6. workspace without skills passes tools through but still creates thread state', async () => {
    const tools = { a: {} };
    for (const [, p] of both({ workspace: { skills: undefined } })) {
      make(p);
      const ml = new MessageList({ threadId: 't', resourceId: 'r' });
      const r1 = await p.processInputStep({ tools, messageList: ml, requestContext: contextFor('t'), messages: [], stepNumber: 0 } as any);
      expect(r1).toEqual({ tools });
      expect(r1.tools).toBe(tools);
      const r2 = await p.processInputStep({ tools: undefined, messageList: ml, requestContext: contextFor('t'), messages: [], stepNumber: 0 } as any);
      expect(Object.keys(r2)).toEqual(['tools']);
      expect(r2.tools).toBeUndefined();
      expect(ml.getSystemMessages()).toEqual([]);
      expect(p.getStateStats().threadCount).toBe(1);
    }
  });

  it('7. maybeRefresh is awaited with { requestContext } on step 0 only', async () => {
    for (const [, p] of both({ workspace: mockWorkspace().workspace })) {
      const { workspace, mock } = mockWorkspace();
      const proc = make(new (p.constructor as any)({ workspace }));
      make(p);
      const rc = contextFor('t');
      await step(proc, { requestContext: rc, stepNumber: 0 });
      await step(proc, { requestContext: rc, stepNumber: 1 });
      expect(mock.maybeRefresh).toHaveBeenCalledTimes(1);
      expect(mock.maybeRefresh).toHaveBeenCalledWith({ requestContext: rc });
    }
  });

  it('8. after step 0 the only system message is the instruction', async () => {
    for (const [, p] of both({ workspace: mockWorkspace().workspace })) {
      const { messageList } = await step(make(p));
      expect(messageList.getSystemMessages()).toEqual([{ role: 'system', content: INSTRUCTION }]);
    }
  });

  it('9. search_skills("api") finds api-design with numeric scores', async () => {
    for (const [, p] of both({ workspace: mockWorkspace().workspace })) {
      const out = await call((await step(make(p))).tools.search_skills, { query: 'api' });
      expect(out.results[0].name).toBe('api-design');
      expect(out.results[0].description).toBe('API design guidelines');
      expect(typeof out.results[0].score).toBe('number');
    }
  });

  it('10. no hits → empty results and the try-different-keywords message', async () => {
    for (const [, p] of both({ workspace: mockWorkspace().workspace })) {
      const out = await call((await step(make(p))).tools.search_skills, { query: 'nonexistent-topic' });
      expect(out).toEqual({ results: [], message: 'No skills found matching "nonexistent-topic". Try different keywords.' });
    }
  });

  it('11. the query is trimmed; a blank query fails validation without searching', async () => {
    for (const [label, p] of both({ workspace: mockWorkspace().workspace })) {
      const { tools } = await step(make(p));
      expect(await call(tools.search_skills, { query: '  kubernetes  ' })).toEqual({
        results: [],
        message: 'No skills found matching "kubernetes". Try different keywords.',
      });
      const { mock } = mockWorkspace();
      const blank = await call(tools.search_skills, { query: '   ' });
      expect(blank.error).toBe(true);
      expect(blank.message).toContain('- query: Query is required');
      const missing = await call(tools.search_skills, {});
      expect(missing.message).toContain('- query: Invalid input: expected string, received undefined');
      expect(mock.search).not.toHaveBeenCalled();
      expect(label).toBeTruthy();
    }
    // Same error object from both.
    const [[, ref], [, ours]] = both({ workspace: mockWorkspace().workspace });
    const a = await call((await step(make(ref))).tools.search_skills, { query: ' ' });
    const b = await call((await step(make(ours))).tools.search_skills, { query: ' ' });
    expect(b).toEqual(a);
  });

  it('12. one result per skill, counted uniquely (reference: duplicate search rows; ours: SKILL.md + reference hits)', async () => {
    const ref = make(
      new RefProcessor({
        workspace: mockWorkspace(MOCK_SKILLS, [
          { skillName: 'api-design', source: 'SKILL.md', score: 2 },
          { skillName: 'api-design', source: 'references/a.md', score: 1.5 },
          { skillName: 'testing', source: 'SKILL.md', score: 1 },
        ]).workspace,
      }),
    );
    const refOut = await call((await step(ref)).tools.search_skills, { query: 'api' });
    expect(refOut.results.map((r: any) => r.name)).toEqual(['api-design', 'testing']);
    expect(refOut.message).toBe('Found 2 skill(s). Use load_skill with the exact skill name to load its instructions.');

    // Ours: api-design matches in SKILL.md and in its reference file; testing in its body.
    const skills: MockSkill[] = [
      { ...MOCK_SKILLS[0]!, references: ['a.md'], refs: { 'a.md': 'api errors: api api' } },
      { ...MOCK_SKILLS[1]!, instructions: 'Write unit tests for the api.' },
      MOCK_SKILLS[2]!,
    ];
    const ours = make(new SkillSearchProcessor({ workspace: mockWorkspace(skills).workspace, search: { topK: 10 } }));
    const raw = rawHits(skills, 'api', 10);
    expect(raw.filter(h => h.name === 'api-design').length).toBe(2);
    const out = await call((await step(ours)).tools.search_skills, { query: 'api' });
    expect(out.results.map((r: any) => r.name)).toEqual([...new Set(raw.map(h => h.name))]);
    expect(out.message).toBe(`Found ${out.results.length} skill(s). Use load_skill with the exact skill name to load its instructions.`);
  });

  it('13. descriptions: 150 kept, 151 cut to 147 + "...", missing → ""', async () => {
    const d150 = 'a'.repeat(149) + 'b';
    const d151 = 'c'.repeat(151);
    const skills: MockSkill[] = [
      { name: 'alpha', description: d150, instructions: 'shared words alpha' },
      { name: 'beta', description: d151, instructions: 'shared words beta' },
      { name: 'gamma', instructions: 'shared words gamma' },
    ];
    // Reference: a search row whose name is not listed gets ''.
    const ref = make(
      new RefProcessor({
        workspace: mockWorkspace(skills, [
          { skillName: 'alpha', score: 1 },
          { skillName: 'beta', score: 1 },
          { skillName: 'ghost', score: 1 },
        ]).workspace,
      }),
    );
    const refOut = await call((await step(ref)).tools.search_skills, { query: 'shared' });
    expect(refOut.results.map((r: any) => r.description)).toEqual([d150, 'c'.repeat(147) + '...', '']);
    // Ours: every hit is a listed skill; one listed without a description gets ''.
    const ours = make(new SkillSearchProcessor({ workspace: mockWorkspace(skills).workspace }));
    const out = await call((await step(ours)).tools.search_skills, { query: 'shared' });
    const byName = Object.fromEntries(out.results.map((r: any) => [r.name, r.description]));
    expect(byName).toEqual({ alpha: d150, beta: 'c'.repeat(147) + '...', gamma: '' });
    expect(byName.beta.length).toBe(150);
  });

  it('14. scores are rounded with Math.round(x*100)/100', async () => {
    const rows = [0.125, 0.005, 1.005, 2.675, 0.5648995428863902].map((score, i) => ({ skillName: `s${i}`, score }));
    const ref = make(new RefProcessor({ workspace: mockWorkspace(MOCK_SKILLS, rows).workspace }));
    const refOut = await call((await step(ref)).tools.search_skills, { query: 'x' });
    expect(refOut.results.map((r: any) => r.score)).toEqual([0.13, 0.01, 1, 2.68, 0.56]);
    // Ours rounds the native index's raw scores the same way.
    const skills: MockSkill[] = MOCK_SKILLS.map(s => ({ ...s, instructions: `${s.instructions} deploy api tests` }));
    const ours = make(new SkillSearchProcessor({ workspace: mockWorkspace(skills).workspace }));
    const out = await call((await step(ours)).tools.search_skills, { query: 'deploy pipelines' });
    const raw = rawHits(skills, 'deploy pipelines', 5);
    expect(out.results.map((r: any) => r.score)).toEqual(raw.map(h => Math.round(h.score * 100) / 100));
    expect(out.results.some((r: any) => r.score !== raw.find(h => h.name === r.name)!.score)).toBe(true);
  });

  it('15. load_skill loads', async () => {
    for (const [, p] of both({ workspace: mockWorkspace().workspace })) {
      const out = await call((await step(make(p))).tools.load_skill, { skillName: 'api-design' });
      expect(out).toEqual({ success: true, message: 'Skill "api-design" loaded. Its instructions are now available as context.', skillName: 'api-design' });
    }
  });

  it('16. a second load in the thread (fresh step tools) is "already loaded" without get()', async () => {
    for (const [, p] of both({ workspace: mockWorkspace().workspace })) {
      const { workspace, mock } = mockWorkspace();
      const proc = make(new (p.constructor as any)({ workspace }));
      make(p);
      await call((await step(proc, { threadId: 't1' })).tools.load_skill, { skillName: 'api-design' });
      const gets = mock.get.mock.calls.length;
      const out = await call((await step(proc, { threadId: 't1', stepNumber: 1 })).tools.load_skill, { skillName: 'api-design' });
      expect(out).toEqual({ success: true, message: 'Skill "api-design" is already loaded.', skillName: 'api-design' });
      expect(mock.get.mock.calls.length).toBe(gets);
    }
  });

  it('17. unknown skill: suggestions in list() order, or the search hint; no skillName key', async () => {
    const skills: MockSkill[] = [
      { name: 'gamma-api', instructions: 'g' },
      { name: 'api-one', instructions: 'o' },
      { name: 'api-two', instructions: 't' },
      { name: 'api-three', instructions: 'x' },
    ];
    for (const [, p] of both({ workspace: mockWorkspace(skills).workspace })) {
      const { tools } = await step(make(p));
      const out = await call(tools.load_skill, { skillName: 'api' });
      expect(out).toEqual({ success: false, message: 'Skill "api" not found. Did you mean: gamma-api, api-one, api-two?' });
      expect('skillName' in out).toBe(false);
      expect(await call(tools.load_skill, { skillName: 'kubernetes' })).toEqual({
        success: false,
        message: 'Skill "kubernetes" not found. Use search_skills to find available skills.',
      });
    }
  });

  it('18. suggestions are case-insensitive and bidirectional; "" suggests the first three', async () => {
    const skills: MockSkill[] = [
      { name: 'alpha', instructions: 'a' },
      { name: 'beta', instructions: 'b' },
      { name: 'deployment', instructions: 'd' },
      { name: 'zeta', instructions: 'z' },
    ];
    for (const [, p] of both({ workspace: mockWorkspace(skills).workspace })) {
      const { tools } = await step(make(p));
      expect((await call(tools.load_skill, { skillName: 'Deployment-Guide' })).message).toBe('Skill "Deployment-Guide" not found. Did you mean: deployment?');
      expect((await call(tools.load_skill, { skillName: 'my-alpha-skill' })).message).toBe('Skill "my-alpha-skill" not found. Did you mean: alpha?');
      expect((await call(tools.load_skill, { skillName: '' })).message).toBe('Skill "" not found. Did you mean: alpha, beta, deployment?');
    }
  });

  it('19. loaded skills are injected as "[Skill: name]\\n\\n<instructions>" strings after the instruction, in load order', async () => {
    for (const [, p] of both({ workspace: mockWorkspace().workspace })) {
      make(p);
      const { tools } = await step(p, { threadId: 't' });
      await call(tools.load_skill, { skillName: 'deployment' });
      await call(tools.load_skill, { skillName: 'api-design' });
      const ml = new MessageList({ threadId: 't', resourceId: 'r' });
      const addSystem = vi.spyOn(ml, 'addSystem');
      await step(p, { threadId: 't', stepNumber: 1, messageList: ml });
      expect(addSystem.mock.calls.map(c => c[0])).toEqual([
        INSTRUCTION,
        '[Skill: deployment]\n\n# Deployment\n\nUse CI/CD pipelines to deploy.',
        '[Skill: api-design]\n\n# API Design\n\nUse REST conventions for every api endpoint.',
      ]);
    }
  });

  it('20. thread isolation by mastra__threadId; no key → "default"', async () => {
    for (const [, p] of both({ workspace: mockWorkspace().workspace })) {
      make(p);
      await call((await step(p, { threadId: 'thread-a' })).tools.load_skill, { skillName: 'api-design' });
      expect((await step(p, { threadId: 'thread-b', stepNumber: 1 })).system).toEqual([INSTRUCTION]);
      expect((await step(p, { threadId: 'thread-a', stepNumber: 1 })).system).toHaveLength(2);
      await call((await step(p, { requestContext: new RequestContext<any>() })).tools.load_skill, { skillName: 'testing' });
      expect((await step(p, { requestContext: new RequestContext<any>(), stepNumber: 1 })).system[1]).toMatch(/^\[Skill: testing\]/);
      p.clearState();
      expect((await step(p, { requestContext: new RequestContext<any>(), stepNumber: 1 })).system).toEqual([INSTRUCTION]);
    }
  });

  it('22. processInputStep twice on one MessageList does not duplicate system messages', async () => {
    for (const [, p] of both({ workspace: mockWorkspace().workspace })) {
      make(p);
      await call((await step(p, { threadId: 't' })).tools.load_skill, { skillName: 'api-design' });
      const ml = new MessageList({ threadId: 't', resourceId: 'r' });
      await step(p, { threadId: 't', messageList: ml, stepNumber: 1 });
      await step(p, { threadId: 't', messageList: ml, stepNumber: 2 });
      expect(ml.getSystemMessages()).toHaveLength(2);
    }
  });

  it('23. TTL: stale threads are cleaned after ttl; fresh ones are not', async () => {
    for (const Ctor of [RefProcessor, SkillSearchProcessor]) {
      const p = make(new Ctor({ workspace: mockWorkspace().workspace as any, ttl: 100 }));
      await step(p, { threadId: 'x' });
      await new Promise(r => setTimeout(r, 150));
      expect(p.cleanupNow()).toBe(1);
      expect(p.getStateStats().threadCount).toBe(0);
      const q = make(new Ctor({ workspace: mockWorkspace().workspace as any, ttl: 1000 }));
      await step(q, { threadId: 'x' });
      expect(q.cleanupNow()).toBe(0);
    }
  });

  it('24. timer: none for ttl 0, max(ttl/2, 60000) otherwise, unref()d', async () => {
    for (const Ctor of [RefProcessor, SkillSearchProcessor]) {
      const spy = vi.spyOn(globalThis, 'setInterval');
      const none = make(new Ctor({ workspace: mockWorkspace().workspace as any, ttl: 0 }));
      expect(spy).not.toHaveBeenCalled();
      expect((none as any).cleanupIntervalId).toBeUndefined();
      await step(none, { threadId: 'x' });
      expect(none.cleanupNow()).toBe(0);
      make(new Ctor({ workspace: mockWorkspace().workspace as any }));
      make(new Ctor({ workspace: mockWorkspace().workspace as any, ttl: 1000 }));
      expect(spy.mock.calls.map(c => c[1])).toEqual([1800000, 60000]);
      const timer = (spy.mock.results[0]!.value as NodeJS.Timeout);
      expect(timer.hasRef()).toBe(false);
      spy.mockRestore();
    }
  });

  it('25. clearState / clearAllState / getStateStats', async () => {
    for (const [, p] of both({ workspace: mockWorkspace().workspace })) {
      make(p);
      expect(p.getStateStats()).toEqual({ threadCount: 0, oldestAccessTime: null });
      const before = Date.now();
      await step(p, { threadId: 'thread-1' });
      await step(p, { threadId: 'thread-2' });
      await step(p, { requestContext: new RequestContext<any>() });
      const stats = p.getStateStats();
      expect(stats.threadCount).toBe(3);
      expect(stats.oldestAccessTime).toBeGreaterThanOrEqual(before);
      expect(stats.oldestAccessTime).toBeLessThanOrEqual(Date.now());
      p.clearState('thread-1');
      expect(p.getStateStats().threadCount).toBe(2);
      p.clearState();
      expect(p.getStateStats().threadCount).toBe(1);
      p.clearAllState();
      expect(p.getStateStats()).toEqual({ threadCount: 0, oldestAccessTime: null });
    }
  });

  it('26. dispose() calls global clearInterval, empties state, and is idempotent', async () => {
    for (const [, p] of both({ workspace: mockWorkspace().workspace })) {
      await step(p, { threadId: 'a' });
      const spy = vi.spyOn(globalThis, 'clearInterval');
      const id = (p as any).cleanupIntervalId;
      p.dispose();
      expect(spy).toHaveBeenCalledWith(id);
      expect(p.getStateStats().threadCount).toBe(0);
      expect(() => p.dispose()).not.toThrow();
      expect(spy).toHaveBeenCalledTimes(1);
      spy.mockRestore();
    }
  });
});

describe('§12 cases on a real Workspace (fixture of §7.1)', () => {
  const SKILLS: FixtureSkill[] = [
    {
      name: 'api-design',
      description: 'Guidelines for designing REST APIs and HTTP endpoints',
      body: '# API Design\n\nUse REST conventions for every api endpoint.\nVersion your api with /v1 prefixes.',
      references: { 'errors.md': 'Error format for api responses: use RFC 7807 problem details.' },
      scripts: { 'lint.sh': 'echo lint' },
      assets: { 'logo.txt': 'logo' },
    },
    { name: 'deployment', description: 'How to deploy applications to production', body: '# Deployment\n\nUse CI/CD pipelines. Deploy with a blue-green strategy.' },
    {
      name: 'testing-strategy',
      description:
        'Best practices for writing tests: unit tests, integration tests, end-to-end tests, property-based tests, snapshot tests, mutation testing and coverage goals for teams.',
      body: '# Testing\n\nWrite unit tests first. Use integration tests\nfor the api.',
    },
  ];
  let fx: TempWorkspace;
  beforeAll(() => {
    fx = tempSkillsWorkspace(SKILLS);
  });
  afterAll(() => fx.cleanup());

  async function run(Ctor: any, query: string, options: Record<string, unknown> = {}, bm25 = true) {
    const p = make(new Ctor({ workspace: fx.make({ bm25 }), ...options }));
    return call((await step(p)).tools.search_skills, { query });
  }

  it('21. loading by path works and injects [Skill: skills/deployment]', async () => {
    for (const Ctor of [RefProcessor, SkillSearchProcessor]) {
      const p = make(new Ctor({ workspace: fx.make() }));
      const out = await call((await step(p, { threadId: 'p' })).tools.load_skill, { skillName: 'skills/deployment' });
      expect(out.success).toBe(true);
      const { system } = await step(p, { threadId: 'p', stepNumber: 1 });
      expect(system[1]).toBe('[Skill: skills/deployment]\n\n# Deployment\n\nUse CI/CD pipelines. Deploy with a blue-green strategy.');
    }
  });

  it('27. BM25: "tests" → testing-strategy both; topK 2 "api" → only api-design both; "http": reference none, ours api-design (difference 7)', async () => {
    for (const Ctor of [RefProcessor, SkillSearchProcessor]) {
      const tests = await run(Ctor, 'tests');
      expect(tests.results).toHaveLength(1);
      expect(tests.results[0].name).toBe('testing-strategy');
      expect(tests.results[0].description.endsWith('...')).toBe(true);
      const api2 = await run(Ctor, 'api', { search: { topK: 2 } });
      expect(api2.results.map((r: any) => r.name)).toEqual(['api-design']);
      expect(api2.message).toBe('Found 1 skill(s). Use load_skill with the exact skill name to load its instructions.');
    }
    // "tests" also appears in testing-strategy's description, so our score adds the description part.
    const refScore = (await run(RefProcessor, 'tests')).results[0].score;
    expect((await run(SkillSearchProcessor, 'tests')).results[0].score).toBeGreaterThan(refScore);
    // Body-only word: identical scores.
    expect(await run(SkillSearchProcessor, 'pipelines')).toEqual(await run(RefProcessor, 'pipelines'));
    expect((await run(RefProcessor, 'http')).results).toEqual([]);
    expect((await run(SkillSearchProcessor, 'http')).results.map((r: any) => r.name)).toEqual(['api-design']);
  });

  it('28. without bm25: substring search, score 1, multi-word queries need contiguous text', async () => {
    for (const Ctor of [RefProcessor, SkillSearchProcessor]) {
      const api = await run(Ctor, 'api', {}, false);
      expect(api.results.map((r: any) => r.score)).toEqual([1, 1]);
      expect(api.results.map((r: any) => r.name)).toEqual(['api-design', 'testing-strategy']);
      expect((await run(Ctor, 'api tests deploy', {}, false)).results).toEqual([]);
    }
    // Difference 7 in substring mode: a description phrase matches ours only.
    expect((await run(RefProcessor, 'http endpoints', {}, false)).results).toEqual([]);
    expect((await run(SkillSearchProcessor, 'http endpoints', {}, false)).results).toEqual([
      { name: 'api-design', description: 'Guidelines for designing REST APIs and HTTP endpoints', score: 1 },
    ]);
  });
});

describe('deliberate differences', () => {
  it('difference 6: without mastra__threadId the memory thread isolates state (reference: shared "default")', async () => {
    const memoryContext = (id: string) => {
      const rc = new RequestContext<any>();
      rc.set('MastraMemory', { thread: { id }, resourceId: 'user' });
      return rc;
    };
    for (const [label, p] of both({ workspace: mockWorkspace().workspace })) {
      make(p);
      await call((await step(p, { requestContext: memoryContext('conv-1') })).tools.load_skill, { skillName: 'api-design' });
      const other = await step(p, { requestContext: memoryContext('conv-2'), stepNumber: 1 });
      const same = await step(p, { requestContext: memoryContext('conv-1'), stepNumber: 1 });
      if (label === 'reference') {
        // Both conversations share 'default': conv-2 sees conv-1's skill.
        expect(other.system).toHaveLength(2);
        expect(p.getStateStats().threadCount).toBe(1);
      } else {
        expect(other.system).toEqual([INSTRUCTION]);
        expect(same.system).toHaveLength(2);
        expect(p.getStateStats().threadCount).toBe(2);
        p.clearState('conv-1');
        expect((await step(p, { requestContext: memoryContext('conv-1'), stepNumber: 1 })).system).toEqual([INSTRUCTION]);
      }
    }
    // mastra__threadId still wins over the memory thread in ours.
    const ours = make(new SkillSearchProcessor({ workspace: mockWorkspace().workspace }));
    const rc = memoryContext('conv-1');
    rc.set('mastra__threadId', 'explicit');
    await call((await step(ours, { requestContext: rc })).tools.load_skill, { skillName: 'testing' });
    expect((await step(ours, { threadId: 'explicit', stepNumber: 1 })).system).toHaveLength(2);
  });

  it('difference 7: name and description words are searchable (reference: body and references only)', async () => {
    const skills: MockSkill[] = [
      { name: 'quantum-widgets', description: 'Calibrating flux capacitors', instructions: 'Turn the dial slowly.' },
      { name: 'other', description: 'Something else', instructions: 'Nothing relevant here.' },
    ];
    const nameQuery = 'quantum';
    const descQuery = 'capacitors';
    const fx = tempSkillsWorkspace(
      skills.map(s => ({ name: s.name, description: s.description!, body: s.instructions })),
    );
    try {
      for (const q of [nameQuery, descQuery]) {
        const refOut = await call((await step(make(new RefProcessor({ workspace: fx.make() })))).tools.search_skills, { query: q });
        expect(refOut).toEqual({ results: [], message: `No skills found matching "${q}". Try different keywords.` });
        const out = await call((await step(make(new SkillSearchProcessor({ workspace: fx.make() })))).tools.search_skills, { query: q });
        expect(out.results.map((r: any) => r.name)).toEqual(['quantum-widgets']);
        expect(out.results[0].description).toBe('Calibrating flux capacitors');
      }
    } finally {
      fx.cleanup();
    }
  });

  it('getIndexStats reports the index (not in the reference)', async () => {
    expect((RefProcessor.prototype as any).getIndexStats).toBeUndefined();
    const p = make(new SkillSearchProcessor({ workspace: mockWorkspace().workspace }));
    expect(p.getIndexStats()).toMatchObject({ skillCount: 0, builds: 0 });
    await call((await step(p)).tools.search_skills, { query: 'api' });
    expect(p.getIndexStats()).toMatchObject({ skillCount: 3, documentCount: 3, builds: 1, checks: 1 });
  });
});

/** Raw native hits for a mock skill set (what ours ranks before de-duplication and rounding). */
function rawHits(skills: MockSkill[], query: string, topK: number) {
  const refTexts = skills.map(s => (s.references ?? []).map(r => s.refs?.[r]).filter((t): t is string => typeof t === 'string'));
  const index = new NativeSkillIndex(
    skills.map(s => s.name),
    skills.map(s => s.description ?? ''),
    skills.map(s => s.instructions),
    refTexts.map(r => r.length),
    refTexts.flat(),
    skills.reduce((n, s) => n + 1 + (s.references?.length ?? 0), 0),
    false,
  );
  const hits = index.search(query, topK, 0);
  return Array.from(hits.skills, (s, i) => ({ name: skills[s]!.name, source: hits.sources[i]!, score: hits.scores[i]! }));
}
