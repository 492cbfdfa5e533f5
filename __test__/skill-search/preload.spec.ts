// SkillSearchProcessor preload (ours, issue 26): the first step of each user message loads, as
// load_skill would, the skill its text finds with confidence, so the skill's instructions are in
// the very first model call. A real Agent (@mastra/core 1.59 in the repository) with a skills
// workspace of 32 skills and a scripted model; in-memory and redisStore state.
import { Agent } from '@mastra/core/agent';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { redisStore, SkillSearchProcessor } from '../../index.js';
import { contextFor, scriptedModel, tempSkillsWorkspace, type TempWorkspace } from '../support/skill-search';
import { useRedis } from '../support/redis-client';

let fx: TempWorkspace;
beforeAll(() => {
  fx = tempSkillsWorkspace();
});
afterAll(() => fx.cleanup());
const redis = useRedis();

const systemTexts = (prompt: any[]) => prompt.filter((m) => m.role === 'system').map((m) => String(m.content));
const skillMessages = (prompt: any[]) => systemTexts(prompt).filter((t) => t.startsWith('[Skill: '));

async function turn(processor: any, workspace: any, threadId: string, text: string) {
  const log: any[] = [];
  const agent = new Agent({ id: 'skills', name: 'skills', instructions: 'Help.', model: scriptedModel([{ text: 'ok' }], log) as any, workspace, inputProcessors: [processor] });
  await agent.generate(text, { maxSteps: 2, requestContext: contextFor(threadId) as any });
  return log;
}

describe.each(['compatible', 'enhanced', 'hybrid'])("SkillSearchProcessor preload, search mode '%s'", (mode) => {
  const search = mode === 'compatible' ? {} : { mode };

  it("a confidently matched skill's instructions are in the first model call; an unrelated request loads nothing", async () => {
    const workspace = fx.make();
    const events: any[] = [];
    const processor = new SkillSearchProcessor({ workspace, search, preload: { onPreload: (e: any) => events.push(e) } } as any);
    const log = await turn(processor, workspace, `skill-${mode}`, 'How should I write Rust code: iterators, unwrap, clippy and unsafe blocks?');
    expect(skillMessages(log[0].prompt)).toEqual([expect.stringMatching(/^\[Skill: rust-style\]\n\n# Guide \d+\n\nPrefer iterators/)]);
    expect(events).toHaveLength(1);
    expect(events[0].threadId).toBe(`skill-${mode}`);
    expect(events[0].skills.map((s: any) => s.name)).toEqual(['rust-style']);
    expect(events[0].skills[0].confidence).toBeGreaterThanOrEqual(0.6);
    // load_skill then says it is loaded, as after a load.
    const { tools } = await processor.processInputStep({ tools: {}, messageList: new (await import('@mastra/core/agent')).MessageList({ threadId: 't', resourceId: 'r' }), requestContext: contextFor(`skill-${mode}`), messages: [], stepNumber: 1 } as any);
    expect(await tools.load_skill.execute({ skillName: 'rust-style' }, {} as any)).toMatchObject({ success: true, message: 'Skill "rust-style" is already loaded.' });
    // The next message on the thread: still loaded, not preloaded again.
    const again = await turn(processor, workspace, `skill-${mode}`, 'More about clippy and unsafe blocks in Rust code please');
    expect(skillMessages(again[0].prompt)).toHaveLength(1);
    expect(events).toHaveLength(1);
    const unrelated = await turn(processor, workspace, `skill-${mode}-other`, 'Tell me a joke about cats');
    expect(skillMessages(unrelated[0].prompt)).toEqual([]);
    expect(events).toHaveLength(1);
  });
});

describe('SkillSearchProcessor preload options and stores', () => {
  it('bad preload options are TypeErrors naming the option; without preload nothing is loaded', async () => {
    const workspace = fx.make();
    const make = (preload: unknown) => () => new SkillSearchProcessor({ workspace, preload } as any);
    expect(make('yes')).toThrow(/SkillSearchProcessor: options\.preload must be true, false or \{ maxSkills\?, minConfidence\?, onPreload\? \}/);
    expect(make({ maxSkills: 0 })).toThrow(/options\.preload\.maxSkills must be an integer from 1 to 20; received the number 0/);
    expect(make({ minConfidence: -1 })).toThrow(/options\.preload\.minConfidence must be a number from 0 to 1/);
    expect(make({ onPreload: 1 })).toThrow(/options\.preload\.onPreload must be a function/);
    const plain = new SkillSearchProcessor({ workspace });
    const log = await turn(plain, workspace, 'plain', 'How should I write Rust code: iterators, unwrap, clippy and unsafe blocks?');
    expect(skillMessages(log[0].prompt)).toEqual([]);
  });

  it('with redisStore, the preloaded skill is in the store and shown by another instance on the thread', async () => {
    const workspace = fx.make();
    const a = new SkillSearchProcessor({ workspace, storage: redisStore(redis.client, { keyPrefix: 'skill-preload:' }), preload: true } as any);
    const b = new SkillSearchProcessor({ workspace, storage: redisStore(redis.client, { keyPrefix: 'skill-preload:' }) });
    const first = await turn(a, workspace, 'shared', 'Set resource requests and limits, readiness probes for pods on Kubernetes clusters');
    expect(skillMessages(first[0].prompt).map((t) => t.split('\n')[0])).toEqual(['[Skill: kubernetes-ops]']);
    expect(await redis.client.zRange('skill-preload:shared', 0, -1)).toEqual(['kubernetes-ops']);
    const second = await turn(b, workspace, 'shared', 'and what else?');
    expect(skillMessages(second[0].prompt).map((t) => t.split('\n')[0])).toEqual(['[Skill: kubernetes-ops]']);
    await a.clearAllState();
  });
});
