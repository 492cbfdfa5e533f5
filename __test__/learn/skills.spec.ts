// SkillSearchProcessor's `learn` (issue 42, docs/learning.md "Skills"): a load_skill call of the
// model's that loaded its skill teaches that the request needs it; a similar later request gets
// the skill preloaded at the first model call and, in 'enhanced'/'hybrid', first in
// search_skills' results. Real Agents with a scripted model over a real skills workspace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '@mastra/core/agent';
import { SkillSearchProcessor } from '../../index.js';
import { agentTurn, call, contextFor, scriptedModel, skillsIn, step, tempSkillsWorkspace, type TempWorkspace } from '../support/skill-search';

let fx: TempWorkspace;
beforeAll(() => {
  fx = tempSkillsWorkspace();
});
afterAll(() => fx.cleanup());

// No word of it is in the deployment skill's text: only learning can connect the two.
const TEACH = 'get my work in front of users without anybody noticing a hiccup';
const AGAIN = 'get our work in front of users without a hiccup please';
const UNRELATED = 'what colour contrast ratio do buttons need';

const LOAD_DEPLOYMENT = [
  { tool: 'search_skills', input: { query: 'ship changes' } },
  { tool: 'load_skill', input: { skillName: 'deployment' } },
  { text: 'Done.' },
];
const ANSWER = [{ text: 'Sure.' }];

const turn = (processor: any, text: string, script: any[], resource = 'alice') => agentTurn(processor, fx.make(), text, script, resource);

function processor(options: any = {}, events?: any[]) {
  return new SkillSearchProcessor({ workspace: fx.make(), preload: events ? { onPreload: (e: any) => events.push(e) } : true, ...options });
}

async function searchNames(p: any, query: string, resource = 'alice') {
  const rc = contextFor('s');
  rc.set('mastra__resourceId', resource);
  const { tools } = await step(p, { requestContext: rc });
  const out = await call(tools.search_skills, { query });
  return out.results.map((r: any) => r.name);
}

describe('SkillSearchProcessor learn: the signal', () => {
  it('a skill the model loaded is preloaded for a similar request at the first model call (marked learned); without learn it is not', async () => {
    const control = processor();
    expect(skillsIn((await turn(control, AGAIN, ANSWER))[0].prompt)).not.toContain('deployment');
    const events: any[] = [];
    const p = processor({ learn: true }, events);
    await turn(p, TEACH, LOAD_DEPLOYMENT);
    expect(p.getLearningStats()).toMatchObject({ scope: 'resource', examples: 1, resources: 1, store: 'in-memory' });
    events.length = 0;
    const log = await turn(p, AGAIN, ANSWER);
    expect(skillsIn(log[0].prompt)).toEqual(['deployment']);
    expect(events).toEqual([{ threadId: expect.any(String), query: AGAIN, skills: [{ name: 'deployment', confidence: expect.any(Number), learned: true }] }]);
    p.dispose();
  });

  it('never learned: a load that found no skill, a skill already loaded, searches alone, and requests without a resource', async () => {
    const p = processor({ learn: true });
    await turn(p, TEACH, [{ tool: 'load_skill', input: { skillName: 'no-such-skill' } }, { text: 'x' }]);
    await turn(p, TEACH, [{ tool: 'search_skills', input: { query: 'deploy' } }, { text: 'x' }]);
    expect(p.getLearningStats()).toMatchObject({ examples: 0 });
    // the second load of one thread answers "already loaded": only the first is learned
    await turn(p, TEACH, [{ tool: 'load_skill', input: { skillName: 'deployment' } }, { tool: 'load_skill', input: { skillName: 'deployment' } }, { text: 'x' }]);
    expect(p.getLearningStats()).toMatchObject({ examples: 1 });
    const anonymous = processor({ learn: true });
    const log: any[] = [];
    const agent = new Agent({ id: 'a', name: 'a', instructions: 'Help.', model: scriptedModel(LOAD_DEPLOYMENT, log) as any, workspace: fx.make(), inputProcessors: [anonymous] });
    await agent.generate(TEACH, { maxSteps: 5, requestContext: contextFor('anon') as any });
    expect(log).toHaveLength(3);
    expect(anonymous.getLearningStats()).toMatchObject({ examples: 0 });
    p.dispose();
    anonymous.dispose();
  });
});

describe('SkillSearchProcessor learn: search_skills and scopes', () => {
  it("'enhanced': the learned skill comes first in search_skills' results; 'compatible' keeps the host's results", async () => {
    for (const mode of ['enhanced', 'compatible'] as const) {
      const plain = processor({ search: { mode } });
      const p = processor({ search: { mode }, learn: true });
      await turn(p, TEACH, LOAD_DEPLOYMENT);
      const before = await searchNames(plain, AGAIN);
      const after = await searchNames(p, AGAIN);
      if (mode === 'compatible') expect(after).toEqual(before);
      else {
        expect(before[0]).not.toBe('deployment');
        expect(after[0]).toBe('deployment');
      }
      // a request unlike anything learned: the same results as without learning
      expect(await searchNames(p, UNRELATED)).toEqual(await searchNames(plain, UNRELATED));
      p.dispose();
      plain.dispose();
    }
  });

  it("scope 'resource': what alice taught serves only alice; forgetLearnedResource removes it", async () => {
    const p = processor({ learn: true });
    await turn(p, TEACH, LOAD_DEPLOYMENT, 'alice');
    expect(skillsIn((await turn(p, AGAIN, ANSWER, 'bob'))[0].prompt)).not.toContain('deployment');
    await expect(p.forgetLearnedResource('alice')).resolves.toBe(1);
    expect(skillsIn((await turn(p, AGAIN, ANSWER, 'alice'))[0].prompt)).not.toContain('deployment');
    p.dispose();
  });

  it("learn.seed: cold-start requests per skill name serve every resource; forgetAllLearned keeps them", async () => {
    const p = processor({ learn: { scope: 'global', seed: { deployment: [TEACH] } } });
    expect(skillsIn((await turn(p, AGAIN, ANSWER, 'carol'))[0].prompt)).toEqual(['deployment']);
    await p.forgetAllLearned();
    expect(p.getLearningStats()).toMatchObject({ examples: 0, seeds: 1 });
    expect(skillsIn((await turn(p, AGAIN, ANSWER, 'dave'))[0].prompt)).toEqual(['deployment']);
    p.dispose();
  });

  it('bad learn options are TypeErrors naming the option; off, the learning calls answer nothing', async () => {
    expect(() => processor({ learn: 'yes' })).toThrow(/SkillSearchProcessor: options\.learn must be true, false or \{/);
    expect(() => processor({ learn: { seed: ['x'] } })).toThrow(/options\.learn\.seed must be an object mapping skill names to example requests/);
    expect(() => processor({ learn: { scope: 'team' } })).toThrow(/options\.learn\.scope must be 'resource' or 'global'/);
    const off = processor();
    expect(off.getLearningStats()).toBeNull();
    await expect(off.forgetLearnedResource('alice')).resolves.toBe(0);
  });
});
