// SkillSearchProcessor end to end on every host of the matrix: a real Agent (scripted model,
// LibSQL memory, two turns) with the host's own processor and with ours must offer, send, answer
// and store the same; a rejecting refresh under a real Mastra logger; concurrent tenants through
// one Agent with request-scoped skills.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { fixtureSkills } from '../support/skill-search';
import { runAgent } from '../support/agent-run';
import { HOST_VERSIONS, loadHost } from '../support/hosts';
import { scriptedModel } from '../support/scripted-model';
import { contextOf, reactiveSkillModel, recordingLogger, tempRoot, workspaceOf, writeSkills } from '../support/skill-search-hosts';

let fx: { root: string; cleanup(): void };
beforeAll(() => {
  fx = tempRoot('skill-agent-');
  writeSkills(fx.root, 'skills', fixtureSkills().slice(0, 10));
  writeSkills(fx.root, 'tenants/a', [
    { name: 'deploy', description: 'Team guide one', body: '# Deploy\n\nCanary releases first. Marker aardvark.' },
    { name: 'alpha-notes', description: 'Team guide two', body: 'Notes about canary pager duty. Marker aardvark.' },
  ]);
  writeSkills(fx.root, 'tenants/b', [
    { name: 'deploy', description: 'Crew manual one', body: '# Deploy\n\nCanary ledger checks. Marker bonobo.' },
    { name: 'beta-notes', description: 'Crew manual two', body: 'Notes about the books. Marker bonobo.' },
  ]);
  writeSkills(fx.root, 'tenants/none', []);
});
afterAll(() => fx.cleanup());

const SCRIPT = [
  { tool: 'search_skills', input: { query: 'canary releases' } },
  { tool: 'load_skill', input: { skillName: 'deployment' } },
  { text: 'Use a canary rollout.' },
  { tool: 'load_skill', input: { skillName: 'deployment' } },
  { text: 'Bye.' },
];

/** Prompts carry wall-clock `createdAt` stamps (providerOptions.mastra); everything else must match. */
const untimed = (value: unknown) => JSON.parse(JSON.stringify(value, (key, v) => (key === 'createdAt' ? 0 : v)));

const systemOf = (prompt: any[]) => prompt.filter((m) => m.role === 'system').map((m) => m.content);

describe.each(HOST_VERSIONS)('SkillSearchProcessor in a real Agent on host @mastra/core %s', (version) => {
  const host = loadHost(version);
  const HostProcessor = host.processors.SkillSearchProcessor;
  const { SkillSearchProcessor } = host.ours;
  const caps = host.ourHost.host.capabilities;

  it('search_skills → load_skill → answer, two turns with LibSQL memory: identical to the host\'s processor', async () => {
    const run = (Ctor: any, options: Record<string, unknown>) => {
      const workspace = workspaceOf(host, fx.root, ['skills']);
      return runAgent(host, {
        inputProcessors: () => [new Ctor({ workspace, ...options })],
        agentOptions: { workspace },
        script: SCRIPT,
        turns: ['How do I ship safely?', 'Thanks, and load it again'],
      });
    };
    // The default refresh mode; blockingRefresh is covered step by step in hosts.spec.ts.
    for (const options of [{}]) {
      const theirs = await run(HostProcessor, options);
      const ours = await run(SkillSearchProcessor, options);
      expect(untimed(ours.calls)).toEqual(untimed(theirs.calls));
      expect(ours.texts).toEqual(theirs.texts);
      expect(ours.toolResults).toEqual(theirs.toolResults);
      expect(ours.stored).toEqual(theirs.stored);
      // Not vacuous: the skill was found, loaded, and is in the second turn's first prompt.
      expect(theirs.texts).toEqual(['Use a canary rollout.', 'Bye.']);
      expect(theirs.toolResults[0].map((r) => r.toolName)).toEqual(['search_skills', 'load_skill']);
      expect((theirs.toolResults[1][0].result as any).message).toContain('already loaded');
      expect(systemOf(theirs.calls[3].prompt as any[]).some((s: string) => s.startsWith('[Skill: deployment]'))).toBe(true);
    }
  });

  it('a rejecting maybeRefresh under new Mastra({ logger }): same generate() outcome and logged warnings as the host', async () => {
    const { Mastra } = host.require('@mastra/core/mastra');
    const run = async (Ctor: any, options: Record<string, unknown>) => {
      const workspace = workspaceOf(host, fx.root, ['skills']);
      workspace.skills.maybeRefresh = async () => {
        throw new Error('sandbox offline');
      };
      const { logger, warns } = recordingLogger(host);
      const processor = new Ctor({ workspace, ...options });
      const agent = new host.agent.Agent({
        id: 'refresh-agent',
        name: 'refresh-agent',
        instructions: 'Be brief.',
        model: scriptedModel([{ text: 'Still here.' }], []),
        workspace,
        inputProcessors: [processor],
      });
      new Mastra({ logger, agents: { refreshAgent: agent } });
      const consoleWarns: unknown[] = [];
      const spy = vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => {
        consoleWarns.push(args);
      });
      try {
        const outcome = await agent.generate('hello').then(
          (r: any) => ({ text: r.text }),
          (e: Error) => ({ error: String(e?.message ?? e) }),
        );
        await new Promise((resolve) => setTimeout(resolve, 30));
        const shape = (args: any[]) => args.map((a) => (a && a.error instanceof Error ? { error: a.error.message } : a));
        const refreshWarns = warns.filter((w) => String(w[0]).includes('refresh'));
        return { outcome, logged: refreshWarns.map(shape), console: consoleWarns.filter((w: any) => String(w[0]).includes('refresh')).length };
      } finally {
        spy.mockRestore();
        processor.dispose();
      }
    };
    for (const options of [{}, { blockingRefresh: true }]) {
      const theirs = await run(HostProcessor, options);
      const ours = await run(SkillSearchProcessor, options);
      expect(ours).toEqual(theirs);
      if (caps.skillRefresh === 'background-logged') {
        expect(theirs.outcome).toEqual({ text: 'Still here.' });
        expect(theirs.logged).toEqual([['SkillSearchProcessor: skills refresh failed', { error: 'sandbox offline' }]]);
        expect(theirs.console).toBe(0);
      } else {
        expect((theirs.outcome as any).error).toContain('sandbox offline');
      }
    }
  });

  if (caps.scopedSkills) {
    it('12 concurrent generate() calls from two tenants through one Agent (no memory: one shared default thread)', async () => {
      const workspace = workspaceOf(host, fx.root, ({ requestContext }) => [`tenants/${requestContext?.get?.('tenant') ?? 'none'}`]);
      const log: Array<{ prompt: any[] }> = [];
      const processor = new SkillSearchProcessor({ workspace });
      const agent = new host.agent.Agent({
        id: 'tenants-agent',
        name: 'tenants-agent',
        instructions: 'Help the team.',
        model: reactiveSkillModel('canary', log),
        workspace,
        inputProcessors: [processor],
      });
      try {
        const runs = await Promise.all(
          Array.from({ length: 12 }, (_, i) => {
            const tenant = i % 2 === 0 ? 'a' : 'b';
            const requestContext = contextOf(host, { tenant });
            return agent
              .generate(`request ${i} from team ${tenant}`, { maxSteps: 5, requestContext })
              .then((r: any) => ({ i, tenant, r }));
          }),
        );
        const marker = { a: 'aardvark', b: 'bonobo' } as const;
        for (const { i, tenant, r } of runs) {
          expect(r.text).toBe('done');
          const prompts = log.filter((c) => JSON.stringify(c.prompt).includes(`request ${i} from team ${tenant}`)).map((c) => c.prompt);
          expect(prompts).toHaveLength(3);
          const foreign = marker[tenant === 'a' ? 'b' : 'a'];
          for (const prompt of prompts) expect(JSON.stringify(prompt)).not.toContain(foreign);
          const loadResult = (r.steps ?? []).flatMap((s: any) => s.toolResults ?? []).map((t: any) => t.payload?.result ?? t.output ?? t.result)[1];
          expect(loadResult.success).toBe(true);
          const last = systemOf(prompts[2]);
          expect(last.some((s: string) => s.startsWith(`[Skill: ${loadResult.skillName}]`) && s.includes(marker[tenant]))).toBe(true);
        }
      } finally {
        processor.dispose();
      }
    });
  }
});

