// Ours vs @mastra/core@1.59.0 on a generated 32-skill workspace (real LocalFilesystem in a temp
// folder; some skills with references/, scripts/, assets/).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SkillSearchProcessor as RefProcessor } from '@mastra/core/processors';
import { SkillSearchProcessor } from '../../index.js';
import { nativeWorkspaceTokens } from '../../binding.js';
import { call, fixtureSkills, skillFile, step, tempSkillsWorkspace, writeSkill, type TempWorkspace } from '../support/skill-search';

const SKILLS = fixtureSkills();
const META_TOKENS = new Set(SKILLS.flatMap(s => nativeWorkspaceTokens(`${s.name} ${s.description}`)));

// Words that occur only in SKILL.md bodies or reference files.
const BODY_QUERIES = [
  'pipelines',
  'canary releases',
  'reversible backfill batches',
  'postmortem',
  'correlation secrets',
  'flamegraphs',
  'quokka',
  'wombat appendix',
  'rebase squash fixups',
  'readiness probes',
  'exponential backoff',
  'cursors',
  'follow steps carefully',
  'Checklist!',
  'json json lines',
  'keyboard contrast ratios',
  'pagination v1 prefixes',
];
// Queries touching names or descriptions: result shape and messages must still match.
const MIXED_QUERIES = ['api', 'tests', 'deploy production', 'style', 'code', 'rust iterators', 'kubernetes', 'zzzz nothing'];

let fx: TempWorkspace;
let ref: RefProcessor;
let ours: SkillSearchProcessor;
let refTools: Record<string, any>;
let ourTools: Record<string, any>;

beforeAll(async () => {
  fx = tempSkillsWorkspace(SKILLS);
  ref = new RefProcessor({ workspace: fx.make() });
  ours = new SkillSearchProcessor({ workspace: fx.make() });
  refTools = (await step(ref, { threadId: 'd' })).tools;
  ourTools = (await step(ours, { threadId: 'd' })).tools;
});
afterAll(() => {
  ref.dispose();
  ours.dispose();
  fx.cleanup();
});

function shape(out: any) {
  return {
    keys: Object.keys(out),
    results: out.results.map((r: any) => [Object.keys(r), typeof r.name, typeof r.description, typeof r.score]),
  };
}

describe('differential: search_skills', () => {
  it('the fixture has at least 30 skills, with references, scripts and assets', async () => {
    const list = await fx.make().skills!.list();
    expect(list.length).toBeGreaterThanOrEqual(30);
    const first = await fx.make().skills!.get('api-design');
    expect(first!.references.length).toBeGreaterThan(0);
    expect(first!.scripts.length).toBeGreaterThan(0);
    expect(first!.assets.length).toBeGreaterThan(0);
  });

  it('body-only queries: identical results (same top result, scores and messages)', async () => {
    for (const q of BODY_QUERIES) {
      expect(nativeWorkspaceTokens(q).some(t => META_TOKENS.has(t)), q).toBe(false);
      const a = await call(refTools.search_skills, { query: q });
      const b = await call(ourTools.search_skills, { query: q });
      expect(a.results.length, q).toBeGreaterThan(0);
      expect(b, q).toEqual(a);
    }
  });

  it('body-only queries with topK 3 and minScore 0.5: identical', async () => {
    const r = new RefProcessor({ workspace: fx.make(), search: { topK: 3, minScore: 0.5 } });
    const o = new SkillSearchProcessor({ workspace: fx.make(), search: { topK: 3, minScore: 0.5 } });
    const rt = (await step(r)).tools;
    const ot = (await step(o)).tools;
    for (const q of BODY_QUERIES) {
      expect(await call(ot.search_skills, { query: q }), q).toEqual(await call(rt.search_skills, { query: q }));
    }
    r.dispose();
    o.dispose();
  });

  it('every query: same result shape; messages follow the reference templates', async () => {
    for (const q of [...BODY_QUERIES, ...MIXED_QUERIES]) {
      const a = await call(refTools.search_skills, { query: q });
      const b = await call(ourTools.search_skills, { query: q });
      const message = (out: any) =>
        out.results.length === 0
          ? `No skills found matching "${q.trim()}". Try different keywords.`
          : `Found ${out.results.length} skill(s). Use load_skill with the exact skill name to load its instructions.`;
      expect(a.message).toBe(message(a));
      expect(b.message).toBe(message(b));
      if (b.results.length === a.results.length) expect(shape(b)).toEqual(shape(a));
      for (const r of b.results) {
        expect(Object.keys(r)).toEqual(['name', 'description', 'score']);
        expect(r.description.length).toBeLessThanOrEqual(150);
        expect(Math.round(r.score * 100) / 100).toBe(r.score);
      }
      // Ours finds at least what the reference finds (it indexes a superset of the text).
      expect(b.results.length).toBeGreaterThanOrEqual(Math.min(a.results.length, 1));
    }
  });

  it('validation errors are identical', async () => {
    for (const input of [{ query: '   ' }, {}, { query: 42 }]) {
      expect(await call(ourTools.search_skills, input)).toEqual(await call(refTools.search_skills, input));
    }
  });

  it('improvement: description-only and name-only words find their skill; the reference finds nothing', async () => {
    for (const [q, skill] of [
      ['gdpr', 'data-privacy'],
      ['observability alerts', 'metrics-dashboards'],
      ['outages', 'incident-response'],
      ['interviewing', 'interviewing'],
    ] as const) {
      expect(await call(refTools.search_skills, { query: q })).toEqual({
        results: [],
        message: `No skills found matching "${q}". Try different keywords.`,
      });
      const out = await call(ourTools.search_skills, { query: q });
      expect(out.results[0].name, q).toBe(skill);
    }
  });
});

describe('differential: load_skill, system messages and state', () => {
  it('load_skill outputs, system messages and state stats are identical', async () => {
    const r = new RefProcessor({ workspace: fx.make() });
    const o = new SkillSearchProcessor({ workspace: fx.make() });
    const calls = ['api-design', 'api-design', 'skills/deployment', 'skills/logging/SKILL.md', 'api', 'style', '', 'Kubernetes-Ops-Guide', 'nope', '../api-design'];
    for (const [p, outs] of [
      [r, [] as any[]],
      [o, [] as any[]],
    ] as const) {
      const { tools } = await step(p, { threadId: 'L' });
      for (const skillName of calls) outs.push(await call(tools.load_skill, { skillName }));
      outs.push(await call(tools.load_skill, {}));
      const next = await step(p, { threadId: 'L', stepNumber: 1 });
      outs.push(next.system);
      outs.push((await step(p, { threadId: 'other', stepNumber: 1 })).system);
      outs.push(p.getStateStats().threadCount);
      p.clearState('L');
      outs.push((await step(p, { threadId: 'L', stepNumber: 1 })).system);
      outs.push(p.cleanupNow());
      p.clearAllState();
      outs.push(p.getStateStats());
      (p as any).__outs = outs;
    }
    const a = (r as any).__outs;
    const b = (o as any).__outs;
    expect(b).toEqual(a);
    // Sanity: three skills were loaded and injected in load order.
    expect(a[calls.length + 1].map((s: string) => s.split('\n')[0])).toEqual([
      expect.stringContaining('To discover available skills'),
      '[Skill: api-design]',
      '[Skill: skills/deployment]',
      '[Skill: skills/logging/SKILL.md]',
    ]);
    r.dispose();
    o.dispose();
  });
});

describe('index lifecycle', () => {
  it('is built once, re-checked after each step-0 refresh, and rebuilt only when skills change', async () => {
    const local = tempSkillsWorkspace(SKILLS.slice(0, 8));
    try {
      const ws = local.make();
      const p = new SkillSearchProcessor({ workspace: ws });
      const search = async (q: string, stepNumber = 0) => call((await step(p, { stepNumber })).tools.search_skills, { query: q });
      await search('pipelines');
      expect(p.getIndexStats()).toMatchObject({ builds: 1, checks: 1, skillCount: 8 });
      // Later steps and repeated searches reuse the index without re-checking.
      await search('pipelines', 1);
      await search('canary', 2);
      expect(p.getIndexStats()).toMatchObject({ builds: 1, checks: 1 });
      // A new step 0 re-checks; nothing changed, so no rebuild.
      await search('pipelines', 0);
      expect(p.getIndexStats()).toMatchObject({ builds: 1, checks: 2 });

      // A new skill added through the workspace without a refresh: Mastra's skills object is
      // change-tracked, so the next search re-checks (even a later step of the same request).
      writeSkill(local.root, { name: 'zebra-care', description: 'Looking after zebras', body: 'Brush the stripes gently.' });
      await ws.skills!.addSkill('skills/zebra-care');
      expect((await search('stripes', 1)).results[0].name).toBe('zebra-care');
      expect(p.getIndexStats()).toMatchObject({ builds: 2, checks: 3, skillCount: 9 });
      // Nothing changed since: later steps reuse the index without re-checking.
      await search('stripes', 2);
      expect(p.getIndexStats()).toMatchObject({ builds: 2, checks: 3 });

      // Changed SKILL.md content → rebuilt; old words gone, new ones found.
      writeFileSync(join(local.root, 'skills/zebra-care/SKILL.md'), skillFile({ name: 'zebra-care', description: 'Looking after zebras', body: 'Trim the hooves.' }));
      await ws.skills!.addSkill('skills/zebra-care');
      expect((await search('hooves', 0)).results[0].name).toBe('zebra-care');
      expect((await search('stripes', 1)).results).toEqual([]);
      expect(p.getIndexStats().builds).toBe(3);
      p.dispose();
    } finally {
      local.cleanup();
    }
  });
});
