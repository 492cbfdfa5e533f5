// search.mode 'enhanced' (issue 5) on a small multilingual skills workspace (real LocalFilesystem
// in a temp folder): Traditional and Simplified Chinese, Japanese, Korean, English, mixed scripts
// and full-width text. Each improvement is shown next to what @mastra/core@1.59.0 and our
// compatible mode return for the same query.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SkillSearchProcessor as RefProcessor } from '@mastra/core/processors';
import { SkillSearchProcessor } from '../../index.js';
import { call, fixtureSkills, PAST_FULL_CHECK_MS, shiftClock, step, tempSkillsWorkspace, writeSkill, type FixtureSkill, type TempWorkspace } from '../support/skill-search';

const LONG_DESCRIPTION =
  'Create invoices for customers with tax lines, discounts, payment terms, due dates, currency conversion, ' +
  'reminders for overdue balances and exports to accounting systems.';

const MULTILINGUAL: FixtureSkill[] = [
  // Traditional Chinese
  { name: 'weather-report', description: '查詢城市的天氣預報與氣溫', body: '根據氣象資料回答天氣問題。' },
  // Simplified Chinese, with a reference file
  {
    name: 'send-email',
    description: '发送电子邮件给联系人',
    body: '先确认收件人地址，再撰写邮件主题。',
    references: { 'templates.md': '邮件模板与签名档' },
  },
  // Japanese
  { name: 'translate-docs', description: 'ドキュメントを別の言語に翻訳します', body: '用語集を使って翻訳する。' },
  // Korean
  { name: 'restaurant-finder', description: '근처 맛집과 식당을 검색합니다', body: '지역 이름으로 식당을 찾습니다.' },
  // Full-width Latin mixed with Japanese
  { name: 'unit-converter', description: 'Ｃｏｎｖｅｒｔ　ｕｎｉｔｓ：長さと重さを変換', body: 'メートルとフィートを変換する。' },
  // Mixed scripts
  { name: 'pr-review', description: '审查 GitHub pull requests 并留下评论', body: 'Check diffs carefully and leave concrete suggestions.' },
  // English
  {
    name: 'deploy-service',
    description: 'Ship services to production',
    body: 'Roll out with canary releases and watch error budgets.',
    references: { 'runbook.md': 'Rollback runbook for outages.' },
  },
  { name: 'invoice-generator', description: LONG_DESCRIPTION, body: 'Number invoices sequentially.' },
  { name: 'calendar-scheduling', description: 'Schedule meetings on the team calendar', body: 'Respect time zones and working hours.' },
];
// A few unrelated English skills from the shared fixture, so rankings have competition.
const FILLER = fixtureSkills().filter(s => ['logging', 'caching', 'accessibility', 'git-workflow', 'onboarding', 'sql-style'].includes(s.name));
const SKILLS = [...MULTILINGUAL, ...FILLER];

let fx: TempWorkspace;
let ref: RefProcessor;
let compatible: SkillSearchProcessor;
let enhanced: SkillSearchProcessor;
let refTools: Record<string, any>;
let compatibleTools: Record<string, any>;
let enhancedTools: Record<string, any>;

beforeAll(async () => {
  fx = tempSkillsWorkspace(SKILLS);
  ref = new RefProcessor({ workspace: fx.make() });
  compatible = new SkillSearchProcessor({ workspace: fx.make() });
  enhanced = new SkillSearchProcessor({ workspace: fx.make(), search: { mode: 'enhanced' } });
  refTools = (await step(ref, { threadId: 'e' })).tools;
  compatibleTools = (await step(compatible, { threadId: 'e' })).tools;
  enhancedTools = (await step(enhanced, { threadId: 'e' })).tools;
});
afterAll(() => {
  ref.dispose();
  compatible.dispose();
  enhanced.dispose();
  fx.cleanup();
});

/** First result of each implementation (null when nothing is found). */
async function tops(query: string) {
  const first = async (tools: Record<string, any>) => (await call(tools.search_skills, { query })).results[0]?.name ?? null;
  return { query, reference: await first(refTools), compatible: await first(compatibleTools), enhanced: await first(enhancedTools) };
}

/** All rows at once, so a failure shows every query's three results side by side. */
async function expectTops(rows: Array<[string, string | null, string | null, string]>) {
  const got = [];
  for (const [query] of rows) got.push(await tops(query));
  expect(got).toEqual(rows.map(([query, reference, ours, want]) => ({ query, reference, compatible: ours, enhanced: want })));
}

describe('enhanced search_skills finds what compatible mode cannot', () => {
  it('same-language CJK, full-width and mixed-script queries', async () => {
    // [query, reference's top result, our compatible top result, enhanced top result]
    const rows: Array<[string, string | null, string | null, string]> = [
      ['天氣預報', null, null, 'weather-report'],
      ['电子邮件', null, null, 'send-email'],
      ['翻訳', null, null, 'translate-docs'],
      ['맛집', null, null, 'restaurant-finder'],
      ['식당 검색', null, null, 'restaurant-finder'],
      ['重さを変換', null, null, 'unit-converter'],
      ['convert units', null, null, 'unit-converter'], // ASCII → full-width
      // Full-width query → full-width text: our compatible mode matches it too (name/description
      // indexing); the reference does not index descriptions.
      ['ＣＯＮＶＥＲＴ　ＵＮＩＴＳ', null, 'unit-converter', 'unit-converter'],
      ['ｄｅｐｌｏｙ　ｓｅｒｖｉｃｅ', null, null, 'deploy-service'], // full-width → ASCII
      ['留下评论', null, null, 'pr-review'],
      ['签名', null, null, 'send-email'], // only in send-email's reference file
    ];
    await expectTops(rows);
  });

  it('cross-script: Traditional query → Simplified skill and vice versa', async () => {
    const rows: Array<[string, string | null, string | null, string]> = [
      ['電子郵件', null, null, 'send-email'], // Traditional → 发送电子邮件
      ['發送郵件', null, null, 'send-email'],
      ['天气预报', null, null, 'weather-report'], // Simplified → 天氣預報
      ['气温', null, null, 'weather-report'],
      ['審查評論', null, null, 'pr-review'],
    ];
    await expectTops(rows);
  });

  it('Korean particles and request endings, Japanese sentences (issue 13)', async () => {
    const rows: Array<[string, string | null, string | null, string]> = [
      ['맛집은 어디야?', null, null, 'restaurant-finder'], // 맛집은 → 맛집
      ['식당 좀 검색해줘', null, null, 'restaurant-finder'], // 검색해줘 ~ 검색합니다
      ['ドキュメントを翻訳してください', null, null, 'translate-docs'],
      ['長さを変換して', null, null, 'unit-converter'],
      ['天気を教えて', null, null, 'weather-report'], // Japanese 天気 folds to 天气, as 天氣 does
    ];
    await expectTops(rows);
  });

  it('English word forms, camelCase/kebab identifiers and typos', async () => {
    const rows: Array<[string, string | null, string | null, string]> = [
      ['deploying', null, null, 'deploy-service'],
      ['invoicing', null, null, 'invoice-generator'],
      ['scheduled-meeting', null, null, 'calendar-scheduling'],
      ['invoiceGenerator', null, null, 'invoice-generator'],
      ['deployService', null, null, 'deploy-service'],
      ['calender', null, null, 'calendar-scheduling'],
      ['depoly', null, null, 'deploy-service'],
      ['restaurnt', null, null, 'restaurant-finder'],
      ['calender meetngs', null, null, 'calendar-scheduling'],
      ['rollbacks', null, null, 'deploy-service'], // reference file, plural
    ];
    await expectTops(rows);
  });
});

describe('enhanced search_skills keeps the compatible result contract', () => {
  it('same result shape, messages, truncation and rounding', async () => {
    const out = await call(enhancedTools.search_skills, { query: 'invoices' });
    expect(Object.keys(out)).toEqual(['results', 'message']);
    expect(out.results[0]).toEqual({
      name: 'invoice-generator',
      description: LONG_DESCRIPTION.slice(0, 147) + '...',
      score: expect.any(Number),
    });
    expect(out.message).toBe(`Found ${out.results.length} skill(s). Use load_skill with the exact skill name to load its instructions.`);
    for (const r of out.results) {
      expect(Object.keys(r)).toEqual(['name', 'description', 'score']);
      expect(Math.round(r.score * 100) / 100).toBe(r.score);
      expect(r.score).toBeGreaterThan(0);
    }
    expect(await call(enhancedTools.search_skills, { query: '  zzzzqqq  ' })).toEqual({
      results: [],
      message: 'No skills found matching "zzzzqqq". Try different keywords.',
    });
    // Input validation is the shared schema's.
    for (const input of [{ query: '   ' }, {}, { query: 42 }]) {
      expect(await call(enhancedTools.search_skills, input)).toEqual(await call(refTools.search_skills, input));
    }
  });

  it('one result per skill, best first; topK counts skills and minScore applies to the enhanced score', async () => {
    // `send-email` matches in its description, body and reference file: still one result.
    const all = (await call(enhancedTools.search_skills, { query: '邮件 签名 services calendar' })).results;
    const names = all.map((r: any) => r.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.filter((n: string) => n === 'send-email')).toHaveLength(1);
    expect(names).toEqual(expect.arrayContaining(['send-email', 'deploy-service', 'calendar-scheduling']));
    expect(all.map((r: any) => r.score)).toEqual([...all.map((r: any) => r.score)].sort((a: number, b: number) => b - a));

    const p = new SkillSearchProcessor({ workspace: fx.make(), search: { mode: 'enhanced', topK: 2, minScore: all[1].score - 0.01 } });
    const top2 = (await call((await step(p)).tools.search_skills, { query: '邮件 签名 services calendar' })).results;
    expect(top2).toEqual(all.slice(0, 2));
    const strict = new SkillSearchProcessor({ workspace: fx.make(), search: { mode: 'enhanced', minScore: all[0].score + 0.01 } });
    expect((await call((await step(strict)).tools.search_skills, { query: '邮件 签名 services calendar' })).results).toEqual([]);
    p.dispose();
    strict.dispose();
  });

  it('does not depend on the workspace search engine (substring-only workspace)', async () => {
    const p = new SkillSearchProcessor({ workspace: fx.make({ bm25: false }), search: { mode: 'enhanced' } });
    const tools = (await step(p)).tools;
    expect((await call(tools.search_skills, { query: '天气预报' })).results[0].name).toBe('weather-report');
    expect((await call(tools.search_skills, { query: 'deploying' })).results[0].name).toBe('deploy-service');
    p.dispose();
  });
});

describe('enhanced mode on odd input', () => {
  it('odd queries and skill names answer normally (no throw)', async () => {
    const odd = ['\u0000', '\uD800', '🏳️‍🌈 email', 'a\u0301', 'İstanbul', '々ー・', '𠀀𠀁', 'x'.repeat(20_000), '天'.repeat(2_000), '__init__', 'the of and'];
    for (const query of odd) {
      const out = await call(enhancedTools.search_skills, { query });
      expect(out.message, query.slice(0, 20)).toMatch(/^(Found \d+ skill\(s\)|No skills found matching)/);
      const load = await call(enhancedTools.load_skill, { skillName: query });
      expect(load.success).toBe(false);
      expect(load.message.startsWith(`Skill "${query}" not found.`)).toBe(true);
    }
  });
});

describe('enhanced load_skill', () => {
  it('"Did you mean" ranks typos and reordered words; the reference finds nothing for them', async () => {
    const rows: Array<[string, string, string]> = [
      // [requested, reference message suffix, enhanced first suggestion]
      ['restaurant-fnder', ' Use search_skills to find available skills.', 'restaurant-finder'],
      ['deploy-servise', ' Use search_skills to find available skills.', 'deploy-service'],
      ['email-send', ' Use search_skills to find available skills.', 'send-email'],
      ['calendar_scheduling', ' Use search_skills to find available skills.', 'calendar-scheduling'],
      ['ＷＥＡＴＨＥＲ－ＲＥＰＯＲＴ', ' Use search_skills to find available skills.', 'weather-report'],
    ];
    for (const [skillName, refSuffix, want] of rows) {
      const a = await call(refTools.load_skill, { skillName });
      const c = await call(compatibleTools.load_skill, { skillName });
      const e = await call(enhancedTools.load_skill, { skillName });
      expect(a).toEqual({ success: false, message: `Skill "${skillName}" not found.${refSuffix}` });
      expect(c).toEqual(a);
      expect(e.success).toBe(false);
      expect(e.message, skillName).toMatch(new RegExp(`^Skill ".*" not found\\. Did you mean: ${want}(, [a-z-]+){0,2}\\?$`));
    }
  });

  it('substring candidates stay suggested, closest first; unrelated names get the search hint', async () => {
    const e = await call(enhancedTools.load_skill, { skillName: 'calendar' });
    expect(e.message).toBe('Skill "calendar" not found. Did you mean: calendar-scheduling?');
    const none = await call(enhancedTools.load_skill, { skillName: 'quantum-physics' });
    expect(none).toEqual({ success: false, message: 'Skill "quantum-physics" not found. Use search_skills to find available skills.' });
    // Loading an existing skill is unchanged.
    expect(await call(enhancedTools.load_skill, { skillName: 'send-email' })).toEqual(await call(refTools.load_skill, { skillName: 'send-email' }));
  });
});

describe('compatible mode is unchanged', () => {
  it('explicit mode "compatible" answers exactly like the reference (body-only words) and the default', async () => {
    const explicit = new SkillSearchProcessor({ workspace: fx.make(), search: { mode: 'compatible' } });
    const tools = (await step(explicit)).tools;
    for (const query of ['canary', 'budgets', 'diffs carefully', 'sequentially', 'respect zones', 'correlation secrets', '根據氣象資料回答天氣問題。']) {
      const a = await call(refTools.search_skills, { query });
      expect(a.results.length, query).toBeGreaterThan(0);
      expect(await call(tools.search_skills, { query }), query).toEqual(a);
      expect(await call(compatibleTools.search_skills, { query }), query).toEqual(a);
    }
    for (const skillName of ['deploy', 'restaurant-fnder', 'weather-report', 'report']) {
      expect(await call(tools.load_skill, { skillName }), skillName).toEqual(await call(refTools.load_skill, { skillName }));
    }
    expect((explicit as any).searchConfig).toEqual((ref as any).searchConfig);
    explicit.dispose();
  });
});

describe('options.search.mode', () => {
  it('accepts compatible, enhanced and undefined; anything else is a TypeError naming the option', () => {
    const workspace = fx.make();
    // null/undefined mean the default, as for ToolSearchProcessor's options.
    for (const mode of ['compatible', 'enhanced', undefined, null]) {
      const p = new SkillSearchProcessor({ workspace, search: { mode } as any });
      // searchConfig keeps the reference's shape.
      expect(Object.keys((p as any).searchConfig)).toEqual(['topK', 'minScore']);
      p.dispose();
    }
    const cases: Array<[unknown, string]> = [
      ['fast', 'the string "fast"'],
      ['Enhanced', 'the string "Enhanced"'],
      [1, 'the number 1'],
      [['enhanced'], 'an array'],
      [true, 'boolean'],
    ];
    for (const [mode, received] of cases) {
      expect(() => new SkillSearchProcessor({ workspace, search: { mode } as any })).toThrow(
        new TypeError(`SkillSearchProcessor: options.search.mode must be 'compatible', 'enhanced' or 'hybrid'; received ${received}.`),
      );
    }
  });
});

describe('enhanced index lifecycle', () => {
  it('is built once, re-checked after step-0 refreshes, rebuilt only when skills change', async () => {
    const local = tempSkillsWorkspace(MULTILINGUAL.slice(0, 4));
    try {
      const ws = local.make();
      const p = new SkillSearchProcessor({ workspace: ws, search: { mode: 'enhanced' } });
      const search = async (query: string, stepNumber = 0) => call((await step(p, { stepNumber })).tools.search_skills, { query });
      expect((await search('天气')).results[0].name).toBe('weather-report');
      expect(p.getIndexStats()).toMatchObject({ builds: 1, checks: 1, skillCount: 4, documentCount: 5 });
      await search('郵件', 1);
      await search('翻訳', 0);
      expect(p.getIndexStats()).toMatchObject({ builds: 1, checks: 2 });

      writeSkill(local.root, { name: 'tea-ceremony', description: '日本の茶道の作法', body: '抹茶を点てる。' });
      await ws.skills!.addSkill('skills/tea-ceremony');
      // Added without a refresh: seen by the full re-check once its interval has passed.
      const clock = shiftClock(PAST_FULL_CHECK_MS);
      try {
        expect((await search('茶道', 0)).results[0].name).toBe('tea-ceremony');
      } finally {
        clock.restore();
      }
      expect(p.getIndexStats()).toMatchObject({ builds: 2, skillCount: 5 });
      p.dispose();
    } finally {
      local.cleanup();
    }
  });
});
