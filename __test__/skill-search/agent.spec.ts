// End-to-end: a real Mastra Agent with a skills workspace and a scripted model runs
// search_skills → load_skill → answer, once with the reference processor and once with ours.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '@mastra/core/agent';
import { SkillSearchProcessor as RefProcessor, SkillsProcessor } from '@mastra/core/processors';
import { SkillSearchProcessor } from '../../index.js';
import { contextFor, scriptedModel, tempSkillsWorkspace, type TempWorkspace } from '../support/skill-search';

const SCRIPT = [
  { tool: 'search_skills', input: { query: 'canary releases' } },
  { tool: 'load_skill', input: { skillName: 'deployment' } },
  { text: 'Use a blue-green rollout.' },
];

let fx: TempWorkspace;
beforeAll(() => {
  fx = tempSkillsWorkspace();
});
afterAll(() => fx.cleanup());

async function run(Ctor: any, options: { extra?: any[]; threadId?: string; processor?: any } = {}) {
  const log: any[] = [];
  const workspace = fx.make();
  const processor = options.processor ?? new Ctor({ workspace });
  const agent = new Agent({
    id: 'skills-agent',
    name: 'skills-agent',
    instructions: 'You are helpful.',
    model: scriptedModel(SCRIPT, log) as any,
    workspace,
    inputProcessors: [...(options.extra ?? []), processor],
  });
  const result = await agent.generate('How do I ship safely?', {
    maxSteps: 5,
    requestContext: contextFor(options.threadId ?? 'e2e') as any,
  });
  return { log, result, processor };
}

const systemTexts = (prompt: any[]) => prompt.filter(m => m.role === 'system').map(m => m.content);
const toolResults = (prompt: any[]) =>
  prompt.filter(m => m.role === 'tool').flatMap(m => m.content.map((p: any) => ({ tool: p.toolName, output: p.output })));

describe('Agent end-to-end', () => {
  it('offers the same tools at every step, and the last call carries the skill system message', async () => {
    const ref = await run(RefProcessor);
    const ours = await run(SkillSearchProcessor);
    expect(ours.log).toHaveLength(3);
    expect(ours.log.map(s => s.tools)).toEqual(ref.log.map(s => s.tools));
    for (const s of ours.log) {
      expect(s.tools).toEqual(expect.arrayContaining(['skill_read', 'search_skills', 'load_skill']));
      expect(s.tools).not.toContain('skill');
      expect(s.tools).not.toContain('skill_search');
    }
    const last = ours.log[2].prompt;
    expect(systemTexts(last)).toEqual(systemTexts(ref.log[2].prompt));
    expect(systemTexts(last).some((t: string) => t.startsWith('[Skill: deployment]\n\n# Guide 2\n\nUse CI/CD pipelines.'))).toBe(true);
    expect(systemTexts(last).some((t: string) => t.includes('<available_skills>'))).toBe(false);
    // Tool results reach the prompt identically, as { type: 'json', value }.
    expect(toolResults(last)).toEqual(toolResults(ref.log[2].prompt));
    expect(toolResults(last)[0].output).toEqual({
      type: 'json',
      value: {
        results: [{ name: 'deployment', description: 'How to deploy applications to production', score: expect.any(Number) }],
        message: 'Found 1 skill(s). Use load_skill with the exact skill name to load its instructions.',
      },
    });
    expect(ours.result.text).toBe('Use a blue-green rollout.');
    ref.processor.dispose();
    ours.processor.dispose();
  });

  it('JSON Schemas sent to the model equal the reference (§5/§6)', async () => {
    const ref = await run(RefProcessor);
    const ours = await run(SkillSearchProcessor);
    const defs = (log: any[], name: string) => log.map(s => s.toolDefs.find((t: any) => t.name === name));
    for (const name of ['search_skills', 'load_skill']) {
      expect(defs(ours.log, name)).toEqual(defs(ref.log, name));
    }
    expect(defs(ours.log, 'search_skills')[0].inputSchema).toEqual({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { query: { type: 'string', minLength: 1, description: 'Search keywords (e.g., "api design", "testing", "deployment")' } },
      required: ['query'],
      additionalProperties: false,
    });
    expect(defs(ours.log, 'load_skill')[0].inputSchema).toEqual({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { skillName: { type: 'string', description: 'The exact name of the skill to load (from search results)' } },
      required: ['skillName'],
      additionalProperties: false,
    });
    ref.processor.dispose();
    ours.processor.dispose();
  });

  it('a later generate() on the same thread has the skill at step 0; another thread does not', async () => {
    const processor = new SkillSearchProcessor({ workspace: fx.make() });
    await run(null, { processor, threadId: 'keep' });
    const again = await run(null, { processor, threadId: 'keep' });
    expect(systemTexts(again.log[0].prompt).some((t: string) => t.startsWith('[Skill: deployment]'))).toBe(true);
    const other = await run(null, { processor, threadId: 'fresh' });
    expect(systemTexts(other.log[0].prompt).some((t: string) => t.startsWith('[Skill: deployment]'))).toBe(false);
    processor.dispose();
  });

  it('with an explicit SkillsProcessor the agent keeps skill and skill_search (same as the reference)', async () => {
    const ref = await run(RefProcessor, { extra: [new SkillsProcessor({ workspace: fx.make() })] });
    const ours = await run(SkillSearchProcessor, { extra: [new SkillsProcessor({ workspace: fx.make() })] });
    expect(ours.log[0].tools).toEqual(ref.log[0].tools);
    expect(ours.log[0].tools).toEqual(expect.arrayContaining(['skill', 'skill_search', 'skill_read', 'search_skills', 'load_skill']));
    ref.processor.dispose();
    ours.processor.dispose();
  });
});
