// preload (ours, issue 26, first part): with search.mode 'hybrid', the first step of each user
// message activates the tools its text finds with confidence, offered at that very step, through
// the filter's 'search', 'load' and 'active' phases, into the thread's state. A real Agent
// (@mastra/core 1.59 in the repository) with a scripted model and the shipped model. The catalogs
// here are five tools, where hybrid scores run lower than on the ~130-200-tool sets the default
// threshold was chosen on (the right tool scores ~0.5), so these specs set minConfidence 0.4: they
// check the mechanics; the default's precision is bench/agent-steps.mjs's.
import { Agent } from '@mastra/core/agent';
import { RequestContext } from '@mastra/core/request-context';
import { createTool } from '@mastra/core/tools';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

import { redisStore, ToolSearchProcessor } from '../index.js';
import { startRedisServer, type RedisServer } from './support/redis-server';
import { PRELOAD_HEADER, preloadTools, systemTexts } from './support/preload';
import { scriptedModel, type ModelCall, type ScriptStep } from './support/scripted-model';

const ran: string[] = [];
const tools = () => preloadTools(createTool, z, (id) => ran.push(id));

async function turn(processor: any, threadId: string, text: string, script: ScriptStep[]) {
  const log: ModelCall[] = [];
  const agent = new Agent({ id: 'preload', name: 'preload', instructions: 'Help.', model: scriptedModel(script, log) as any, inputProcessors: [processor] });
  const requestContext = new RequestContext();
  requestContext.set('mastra__threadId', threadId);
  const result = await agent.generate(text, { maxSteps: 4, requestContext });
  return { log, result };
}

describe('ToolSearchProcessor preload', () => {
  it('a confidently found tool is offered and called at the first model call, with one system message', async () => {
    const events: any[] = [];
    const processor = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid' }, preload: { minConfidence: 0.4, onPreload: (e: any) => events.push(e) } });
    ran.length = 0;
    const { log, result } = await turn(processor, 'p1', 'What is the weather forecast for Lisbon?', [{ tool: 'get_weather', input: {} }, { text: 'done' }]);
    expect(log[0].tools).toEqual(['search_tools', 'load_tool', 'get_weather']);
    expect(ran).toEqual(['get_weather']);
    expect(result.text).toBe('done');
    const preloadMessages = systemTexts(log[0].prompt as any[]).filter((t) => t.includes(PRELOAD_HEADER));
    expect(preloadMessages).toHaveLength(1);
    expect(preloadMessages[0]).toContain('- `get_weather`: Get the current weather and the forecast for a city');
    expect(events).toHaveLength(1);
    expect(events[0].threadId).toBe('p1');
    expect(events[0].query).toBe('What is the weather forecast for Lisbon?');
    expect(events[0].tools.map((t: any) => t.name)).toContain('get_weather');
    for (const t of events[0].tools) expect(t.confidence).toBeGreaterThanOrEqual(0.4);
    // The state is the thread's, as load_tool's: getLoadedToolsForRequestContext shows it.
    const requestContext = new RequestContext();
    requestContext.set('mastra__threadId', 'p1');
    expect(Object.keys(await processor.getLoadedToolsForRequestContext({ requestContext }))).toEqual(events[0].tools.map((t: any) => t.name));
    processor.dispose();
  });

  it('a later message preloads anew; nothing is preloaded twice or unloaded', async () => {
    const events: any[] = [];
    const processor = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid' }, preload: { maxTools: 1, minConfidence: 0.4, onPreload: (e: any) => events.push(e) } });
    await turn(processor, 'p2', 'What is the weather forecast for Lisbon?', [{ text: 'ok' }]);
    const second = await turn(processor, 'p2', 'Please send an email message to Bob', [{ text: 'ok' }]);
    expect(second.log[0].tools).toEqual(['search_tools', 'load_tool', 'get_weather', 'send_email']);
    const messages = systemTexts(second.log[0].prompt as any[]).filter((t) => t.includes(PRELOAD_HEADER));
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain('`send_email`');
    expect(messages[0]).not.toContain('`get_weather`');
    // The weather question again: already loaded, so no preload and no message.
    const third = await turn(processor, 'p2', 'What is the weather forecast for Lisbon?', [{ text: 'ok' }]);
    expect(third.log[0].tools).toEqual(['search_tools', 'load_tool', 'get_weather', 'send_email']);
    expect(systemTexts(third.log[0].prompt as any[]).some((t) => t.includes(PRELOAD_HEADER))).toBe(false);
    expect(events.map((e) => e.tools.map((t: any) => t.name))).toEqual([['get_weather'], ['send_email']]);
    // Another thread starts empty.
    const other = await turn(processor, 'p2-other', 'Translate text into another language for me', [{ text: 'ok' }]);
    expect(other.log[0].tools).not.toContain('get_weather');
    processor.dispose();
  });

  it.each(['search', 'load', 'active'])('a tool the filter denies in the %s phase is never preloaded or offered', async (phase) => {
    const events: any[] = [];
    const processor = new ToolSearchProcessor({
      tools: tools(),
      search: { mode: 'hybrid' },
      preload: { minConfidence: 0.4, onPreload: (e: any) => events.push(e) },
      filter: ({ toolName, phase: p }: any) => !(toolName === 'get_weather' && p === phase),
    });
    const { log } = await turn(processor, `deny-${phase}`, 'What is the weather forecast for Lisbon?', [{ text: 'ok' }]);
    expect(log[0].tools).not.toContain('get_weather');
    for (const e of events) expect(e.tools.map((t: any) => t.name)).not.toContain('get_weather');
    const preload = systemTexts(log[0].prompt as any[]).filter((t) => t.includes(PRELOAD_HEADER));
    for (const m of preload) expect(m).not.toContain('get_weather');
    const requestContext = new RequestContext();
    requestContext.set('mastra__threadId', `deny-${phase}`);
    expect(Object.keys(await processor.getLoadedToolsForRequestContext({ requestContext }))).not.toContain('get_weather');
    processor.dispose();
  });

  it('bad preload options are TypeErrors naming the option', () => {
    const make = (extra: Record<string, unknown>) => () => new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid' }, ...extra } as any);
    expect(() => new ToolSearchProcessor({ tools: tools(), preload: true } as any)).toThrow(/options\.preload must be used with search\.mode 'hybrid'/);
    expect(make({ storage: 'context', preload: true })).toThrow(/options\.preload must be used with storage 'in-memory' or a shared store/);
    expect(make({ preload: 'yes' })).toThrow(/options\.preload must be true, false or \{ maxTools\?, minConfidence\?, onPreload\? \}/);
    expect(make({ preload: { maxTools: 0 } })).toThrow(/options\.preload\.maxTools must be an integer from 1 to 20; received the number 0/);
    expect(make({ preload: { minConfidence: 2 } })).toThrow(/options\.preload\.minConfidence must be a number from 0 to 1/);
    expect(make({ preload: { onPreload: 'log' } })).toThrow(/options\.preload\.onPreload must be a function/);
    expect(make({ preload: false })).not.toThrow();
  });

  it('without preload the step is what it was: nothing activated, no message', async () => {
    const processor = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid' } });
    const { log } = await turn(processor, 'plain', 'What is the weather forecast for Lisbon?', [{ text: 'ok' }]);
    expect(log[0].tools).toEqual(['search_tools', 'load_tool']);
    expect(systemTexts(log[0].prompt as any[]).some((t) => t.includes(PRELOAD_HEADER))).toBe(false);
    processor.dispose();
  });
});

describe('preload with a shared store', () => {
  let server: RedisServer;
  let client: ReturnType<typeof createClient>;
  beforeAll(async () => {
    server = await startRedisServer();
    client = createClient({ url: server.url });
    client.on('error', () => {});
    await client.connect();
  });
  afterAll(async () => {
    await client?.close().catch(() => {});
    await server?.close();
  });

  it("one instance's preload is loaded for another instance on the same thread", async () => {
    const storeA = redisStore(client, { keyPrefix: 'preload-shared:' });
    const a = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid' }, storage: storeA, preload: { maxTools: 1, minConfidence: 0.4 } });
    const b = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid' }, storage: redisStore(client, { keyPrefix: 'preload-shared:' }) });
    await turn(a, 'shared-thread', 'What is the weather forecast for Lisbon?', [{ text: 'ok' }]);
    expect(await client.zRange('preload-shared:shared-thread', 0, -1)).toEqual(['get_weather']);
    const onB = await turn(b, 'shared-thread', 'and tomorrow?', [{ tool: 'get_weather', input: {} }, { text: 'ok' }]);
    expect(onB.log[0].tools).toEqual(['search_tools', 'load_tool', 'get_weather']);
    await a.clearAllState();
  });
});
