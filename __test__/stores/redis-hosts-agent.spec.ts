// Both processors on `storage: redisStore(client)` inside a real Agent (scripted model, LibSQL
// memory, a real Workspace for skills) on every host of the matrix: the run is
// identical to the host's own processor (in-memory), the names end up in Redis, and a second
// Agent with its own processor instance (another process's, in effect) continues the same
// thread with the tool / skill still loaded, which in-memory state cannot do.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'redis';

import { fixtureSkills } from '../support/skill-search';
import { runAgent, normalizeStored, stable, type AgentRunResult } from '../support/agent-run';
import { HOST_VERSIONS, loadHost, type Host } from '../support/hosts';
import { scriptedModel, type ModelCall, type ScriptStep } from '../support/scripted-model';
import { tempRoot, workspaceOf, writeSkills } from '../support/skill-search-hosts';
import { startRedisServer, type RedisServer } from '../support/redis-server';
import { weatherToolsFor } from '../support/weather-tools';

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
process.on('unhandledRejection', onUnhandled);

let server: RedisServer;
let client: ReturnType<typeof createClient>;
let fx: { root: string; cleanup(): void };

beforeAll(async () => {
  server = await startRedisServer();
  client = createClient({ url: server.url, disableOfflineQueue: true });
  client.on('error', () => {});
  await client.connect();
  fx = tempRoot('skill-redis-agent-');
  writeSkills(fx.root, 'skills', fixtureSkills().slice(0, 10));
});

afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  await client?.close().catch(() => {});
  await server?.close();
  fx?.cleanup();
});

const toolsFor = (host: Host, executed: string[]) => weatherToolsFor(host, executed, 'Get the current weather for a city.');

function expectSameRun(ours: AgentRunResult, ref: AgentRunResult) {
  expect(ours.calls.map((c) => c.tools)).toEqual(ref.calls.map((c) => c.tools));
  expect(ours.calls.map((c) => stable(c.prompt))).toEqual(ref.calls.map((c) => stable(c.prompt)));
  expect(stable(ours.calls.map((c) => c.toolDefs))).toEqual(stable(ref.calls.map((c) => c.toolDefs)));
  expect(ours.texts).toEqual(ref.texts);
  expect(stable(ours.toolResults)).toEqual(stable(ref.toolResults));
  expect(stable(ours.stored)).toEqual(stable(ref.stored));
}

const TOOL_SCRIPT: ScriptStep[] = [
  { tool: 'search_tools', input: { query: 'weather city' } },
  { tool: 'load_tool', input: { toolName: 'get_weather' } },
  { tool: 'get_weather', input: { city: 'Paris' } },
  { text: 'It is sunny in Paris.' },
  { tool: 'get_weather', input: { city: 'Paris' } },
  { text: 'Still sunny.' },
];

const SKILL_SCRIPT: ScriptStep[] = [
  { tool: 'search_skills', input: { query: 'canary releases' } },
  { tool: 'load_skill', input: { skillName: 'deployment' } },
  { text: 'Use a canary rollout.' },
  { tool: 'load_skill', input: { skillName: 'deployment' } },
  { text: 'Bye.' },
];

const systemOf = (call: ModelCall) => (call.prompt as any[]).filter((m) => m.role === 'system').map((m) => String(m.content));

describe.each(HOST_VERSIONS)('redisStore in a real Agent on host @mastra/core %s', (version) => {
  const host = loadHost(version);
  // The staged package's own export (node scripts/hosts.mjs stage).
  const { redisStore } = host.ours as any;

  it('ToolSearchProcessor: search -> load -> use over two turns, identical to the host\u2019s in-memory processor', async () => {
    const keyPrefix = `agent-${version}-tools:`;
    const run = (storage?: unknown) =>
      runAgent(host, {
        inputProcessors: () => [
          storage
            ? new host.ours.ToolSearchProcessor({ tools: toolsFor(host, []), storage })
            : new host.processors.ToolSearchProcessor({ tools: toolsFor(host, []) }),
        ],
        script: TOOL_SCRIPT,
        turns: ['What is the weather in Paris?', 'And again, please.'],
      });
    const ref = await run();
    const ours = await run(redisStore(client, { keyPrefix }));
    expectSameRun(ours, ref);
    expect(ours.calls[2].tools).toEqual(['search_tools', 'load_tool', 'get_weather']);
    expect(await client.zRange(`${keyPrefix}thread-1`, 0, -1)).toEqual(['get_weather']);
  });

  it('SkillSearchProcessor with a real Workspace: search_skills -> load_skill -> answer over two turns, identical to the host\u2019s', async () => {
    const keyPrefix = `agent-${version}-skills:`;
    const run = (storage?: unknown) => {
      const workspace = workspaceOf(host, fx.root, ['skills']);
      return runAgent(host, {
        inputProcessors: () => [
          storage
            ? new host.ours.SkillSearchProcessor({ workspace, storage })
            : new host.processors.SkillSearchProcessor({ workspace }),
        ],
        agentOptions: { workspace },
        script: SKILL_SCRIPT,
        turns: ['How do I ship safely?', 'Thanks, and load it again'],
      });
    };
    const ref = await run();
    const ours = await run(redisStore(client, { keyPrefix }));
    expect(stable(ours.calls)).toEqual(stable(ref.calls));
    expect(ours.texts).toEqual(ref.texts);
    expect(ours.toolResults).toEqual(ref.toolResults);
    expect(ours.stored).toEqual(ref.stored);
    expect(systemOf(ours.calls[3]).some((s) => s.startsWith('[Skill: deployment]'))).toBe(true);
    expect(await client.zRange(`${keyPrefix}thread-1`, 0, -1)).toEqual(['deployment']);
  });

  it('a second Agent with its own processors continues the thread with the tool and the skill still loaded (in-memory cannot)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mnp-redis-agent-'));
    try {
      const storage = new host.libsql.LibSQLStore({ id: 'redis-agent', url: `file:${join(dir, 'memory.db')}` });
      const memory = new host.memory.Memory({ storage, options: { lastMessages: 50 } });
      const workspace = workspaceOf(host, fx.root, ['skills']);
      const makeAgent = (store: { tools: unknown; skills: unknown } | undefined, script: ScriptStep[], calls: ModelCall[], executed: string[]) => {
        const processors = store
          ? [
              new host.ours.ToolSearchProcessor({ tools: toolsFor(host, executed), storage: store.tools }),
              new host.ours.SkillSearchProcessor({ workspace, storage: store.skills }),
            ]
          : [new host.ours.ToolSearchProcessor({ tools: toolsFor(host, executed) }), new host.ours.SkillSearchProcessor({ workspace })];
        return new host.agent.Agent({
          id: 'redis-agent',
          name: 'redis-agent',
          instructions: 'Be brief.',
          model: scriptedModel(script, calls),
          memory,
          workspace,
          inputProcessors: processors,
        });
      };
      const memoryOptions = (thread: string) => ({ maxSteps: 6, memory: { thread, resource: 'user-1' } });
      const first: ScriptStep[] = [
        { calls: [
          { tool: 'load_tool', input: { toolName: 'get_weather' } },
          { tool: 'load_skill', input: { skillName: 'deployment' } },
        ] },
        { text: 'Loaded.' },
      ];
      const second: ScriptStep[] = [{ tool: 'get_weather', input: { city: 'Oslo' } }, { text: 'Sunny in Oslo.' }];
      for (const mode of ['redis', 'in-memory'] as const) {
        const thread = `handover-${mode}`;
        // An explicit keyPrefix serves one processor kind: one store each.
        const store =
          mode === 'redis'
            ? {
                tools: redisStore(client, { keyPrefix: `handover-${version}-tools:` }),
                skills: redisStore(client, { keyPrefix: `handover-${version}-skills:` }),
              }
            : undefined;
        const callsA: ModelCall[] = [];
        const callsB: ModelCall[] = [];
        const executed: string[] = [];
        const a = makeAgent(store, first, callsA, executed);
        expect((await a.generate('Load the weather tool and the deployment skill.', memoryOptions(thread))).text).toBe('Loaded.');
        const b = makeAgent(store, second, callsB, executed);
        const result = await b.generate('Weather in Oslo?', memoryOptions(thread));
        const offered = callsB[0].tools;
        const skillShown = systemOf(callsB[0]).some((s) => s.startsWith('[Skill: deployment]'));
        if (mode === 'redis') {
          expect(offered).toContain('get_weather');
          expect(skillShown).toBe(true);
          expect(executed).toEqual(['Oslo']);
          expect(result.text).toBe('Sunny in Oslo.');
        } else {
          expect(offered).not.toContain('get_weather');
          expect(skillShown).toBe(false);
          expect(executed).toEqual([]);
        }
      }
      const { messages } = await memory.recall({ threadId: 'handover-redis', resourceId: 'user-1', perPage: false });
      expect(normalizeStored(messages).length).toBeGreaterThan(0);
      expect(unhandled).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
