// End-to-end: a real Mastra Agent with a scripted model runs search -> load -> use. The
// tools offered and the prompt at every step must equal what the reference produces.
import { describe, expect, it } from 'vitest';
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';
import { Native, Reference, requestContext, tool } from '../support/tool-search';
import { METATOOL_TOOLS } from '../support/metatool';
import { scriptedModel, type ScriptStep } from '../support/scripted-model';

const catalog = METATOOL_TOOLS;

function buildTools(executed: unknown[]) {
  const tools: Record<string, any> = Object.fromEntries(catalog.map((t) => [t.id, tool(t.id, t.description)]));
  tools.get_weather = createTool({
    id: 'get_weather',
    description: 'Get the current weather for a city',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }: any) => {
      executed.push(city);
      return { city, temperature: 21, conditions: 'sunny' };
    },
  });
  return tools;
}

/** Prompts carry message creation times; everything else must match exactly. */
function withoutTimestamps(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (key, v) => (key === 'createdAt' ? 0 : v)));
}

async function run(P: any, options: Record<string, unknown>, script: ScriptStep[], threadId?: string) {
  const log: any[] = [];
  const executed: unknown[] = [];
  const processor = new P({ tools: buildTools(executed), ...options });
  const agent = new Agent({
    id: 'e2e',
    name: 'e2e',
    instructions: 'You are a helpful assistant.',
    model: scriptedModel(script, log) as any,
    inputProcessors: [processor],
  });
  const result = await agent.generate('What is the weather in Paris?', {
    maxSteps: 6,
    requestContext: threadId ? requestContext(threadId) : undefined,
  } as any);
  return { log, executed, text: result.text, toolResults: result.toolResults ?? [] };
}

async function compare(options: Record<string, unknown>, script: ScriptStep[], threadId?: string) {
  const ref = await run(Reference, options, script, threadId);
  const ours = await run(Native, options, script, threadId);
  expect(ours.log.map((s) => s.tools)).toEqual(ref.log.map((s) => s.tools));
  expect(ours.log.map((s) => withoutTimestamps(s.prompt))).toEqual(ref.log.map((s) => withoutTimestamps(s.prompt)));
  expect(ours.executed).toEqual(ref.executed);
  expect(ours.text).toBe(ref.text);
  return ours;
}

describe('end-to-end with a real Agent', () => {
  it('search -> load -> use (in-memory storage)', async () => {
    const script: ScriptStep[] = [
      { tool: 'search_tools', input: { query: 'weather city' } },
      { tool: 'load_tool', input: { toolName: 'get_weather' } },
      { tool: 'get_weather', input: { city: 'Paris' } },
      { text: 'It is sunny in Paris.' },
    ];
    const ours = await compare({}, script, 'thread-e2e');
    expect(ours.log.map((s) => s.tools)).toEqual([
      ['search_tools', 'load_tool'],
      ['search_tools', 'load_tool'],
      ['search_tools', 'load_tool', 'get_weather'],
      ['search_tools', 'load_tool', 'get_weather'],
    ]);
    expect(ours.executed).toEqual(['Paris']);
    const searchResult = JSON.stringify(ours.log[1].prompt);
    expect(searchResult).toContain('get_weather');
    expect(ours.log.length).toBe(4);
  });

  it('autoLoad: search -> use', async () => {
    const script: ScriptStep[] = [
      { tool: 'search_tools', input: { query: 'get weather' } },
      { tool: 'get_weather', input: { city: 'Paris' } },
      { text: 'Sunny.' },
    ];
    const ours = await compare({ search: { autoLoad: true, topK: 2 } }, script, 'thread-auto');
    expect(ours.log[0].tools).toEqual(['search_tools']);
    expect(ours.log[1].tools).toContain('get_weather');
    expect(ours.executed).toEqual(['Paris']);
  });

  it('context storage with a multi load, no thread id', async () => {
    const script: ScriptStep[] = [
      { tool: 'load_tool', input: { toolNames: ['get_weather'] } },
      { tool: 'get_weather', input: { city: 'Paris' } },
      { text: 'Sunny.' },
    ];
    const ours = await compare({ storage: 'context' }, script);
    expect(ours.log[1].tools).toEqual(['search_tools', 'load_tool', 'get_weather']);
    expect(ours.executed).toEqual(['Paris']);
  });

  it('context storage with a single load now activates the tool (the reference never does)', async () => {
    const script: ScriptStep[] = [
      { tool: 'load_tool', input: { toolName: 'get_weather' } },
      { tool: 'get_weather', input: { city: 'Paris' } },
      { text: 'Sunny.' },
    ];
    const ref = await run(Reference, { storage: 'context' }, script);
    const ours = await run(Native, { storage: 'context' }, script);
    expect(ref.log[1].tools).toEqual(['search_tools', 'load_tool']);
    expect(ref.executed).toEqual([]);
    expect(ours.log[1].tools).toEqual(['search_tools', 'load_tool', 'get_weather']);
    expect(ours.executed).toEqual(['Paris']);
  });
});
