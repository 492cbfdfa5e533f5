// preload (ours, issue 26): the first step of each user message activates the tools its text
// finds with confidence (js/preload.js, every search mode), offered at that very step,
// through the filter's 'search', 'load' and 'active' phases, into the thread's state (every
// storage). A real Agent (@mastra/core 1.59 in the repository) with a scripted model and the
// shipped model, on a five-tool catalog at the default threshold; the default's precision on
// real catalogs is bench/agent-steps.mjs's and bench/preload-calibration.mjs's.
import { Agent } from '@mastra/core/agent';
import { RequestContext } from '@mastra/core/request-context';
import { createTool } from '@mastra/core/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import { redisStore, ToolSearchProcessor } from '../../index.js';
import { useRedis } from '../support/redis-client';
import { PRELOAD_HEADER, preloadTools, systemTexts } from '../support/preload';
import { scriptedModel, type ModelCall, type ScriptStep } from '../support/scripted-model';

const ran: string[] = [];
const tools = () => preloadTools(createTool, z, (id) => ran.push(id));

async function turn(processor: any, threadId: string, text: string, script: ScriptStep[]) {
  const log: ModelCall[] = [];
  const agent = new Agent({ id: 'preload', name: 'preload', instructions: 'Help.', model: scriptedModel(script, log) as any, inputProcessors: [processor] });
  const requestContext = new RequestContext<any>();
  requestContext.set('mastra__threadId', threadId);
  const result = await agent.generate(text, { maxSteps: 4, requestContext });
  return { log, result };
}

describe('ToolSearchProcessor preload', () => {
  it('a confidently found tool is offered and called at the first model call, with one system message', async () => {
    const events: any[] = [];
    const processor = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid' }, preload: { onPreload: (e: any) => events.push(e) } });
    ran.length = 0;
    const { log, result } = await turn(processor, 'p1', 'What is the weather forecast for Lisbon?', [{ tool: 'get_weather', input: {} }, { text: 'done' }]);
    expect(log[0].tools).toEqual(['search_tools', 'load_tool', 'get_weather']);
    expect(ran).toEqual(['get_weather']);
    expect(result.text).toBe('done');
    const preloadMessages = systemTexts(log[0].prompt as any[]).filter((t) => t.includes(PRELOAD_HEADER));
    expect(preloadMessages).toHaveLength(1);
    // names only: a description (maybe an untrusted server's) is not raised to a system message
    expect(preloadMessages[0]).toContain('- `get_weather`');
    expect(preloadMessages[0]).not.toContain('Get the current weather');
    expect(events).toHaveLength(1);
    expect(events[0].threadId).toBe('p1');
    expect(events[0].query).toBe('What is the weather forecast for Lisbon?');
    expect(events[0].tools.map((t: any) => t.name)).toContain('get_weather');
    for (const t of events[0].tools) expect(t.confidence).toBeGreaterThanOrEqual(0.45); // the default minConfidence
    // The state is the thread's, as load_tool's: getLoadedToolsForRequestContext shows it.
    const requestContext = new RequestContext<any>();
    requestContext.set('mastra__threadId', 'p1');
    expect(Object.keys(await processor.getLoadedToolsForRequestContext({ requestContext }))).toEqual(events[0].tools.map((t: any) => t.name));
    processor.dispose();
  });

  it('a later message preloads anew; nothing is preloaded twice or unloaded', async () => {
    const events: any[] = [];
    const processor = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid' }, preload: { maxTools: 1, onPreload: (e: any) => events.push(e) } });
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
      preload: { onPreload: (e: any) => events.push(e) },
      filter: ({ toolName, phase: p }: any) => !(toolName === 'get_weather' && p === phase),
    });
    const { log } = await turn(processor, `deny-${phase}`, 'What is the weather forecast for Lisbon?', [{ text: 'ok' }]);
    expect(log[0].tools).not.toContain('get_weather');
    for (const e of events) expect(e.tools.map((t: any) => t.name)).not.toContain('get_weather');
    const preload = systemTexts(log[0].prompt as any[]).filter((t) => t.includes(PRELOAD_HEADER));
    for (const m of preload) expect(m).not.toContain('get_weather');
    const requestContext = new RequestContext<any>();
    requestContext.set('mastra__threadId', `deny-${phase}`);
    expect(Object.keys(await processor.getLoadedToolsForRequestContext({ requestContext }))).not.toContain('get_weather');
    processor.dispose();
  });

  it('bad preload options are TypeErrors naming the option', () => {
    const make = (extra: Record<string, unknown>) => () => new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid' }, ...extra } as any);
    expect(make({ preload: 'yes' })).toThrow(/options\.preload must be true, false or \{ maxTools\?, minConfidence\?, searchMinConfidence\?, onPreload\? \}/);
    expect(make({ preload: { searchMinConfidence: -1 } })).toThrow(/options\.preload\.searchMinConfidence must be a number from 0 to 1, or false; received the number -1/);
    expect(make({ preload: { maxTools: 0 } })).toThrow(/options\.preload\.maxTools must be an integer from 1 to 20; received the number 0/);
    expect(make({ preload: { minConfidence: 2 } })).toThrow(/options\.preload\.minConfidence must be a number from 0 to 1/);
    expect(make({ preload: { onPreload: 'log' } })).toThrow(/options\.preload\.onPreload must be a function/);
    expect(make({ preload: false })).not.toThrow();
  });

  it.each(['compatible', 'enhanced', 'hybrid'])("search mode '%s': the confident hit is preloaded, a request the catalog cannot serve preloads nothing", async (mode) => {
    const events: any[] = [];
    const search: any = mode === 'compatible' ? {} : { mode };
    const processor = new ToolSearchProcessor({ tools: tools(), search, preload: { onPreload: (e: any) => events.push(e) } });
    const { log } = await turn(processor, `mode-${mode}`, 'Please send an email message to Bob', [{ tool: 'send_email', input: {} }, { text: 'ok' }]);
    expect(log[0].tools).toEqual(['search_tools', 'load_tool', 'send_email']);
    // A request for a tool the catalog lacks (what the confidence is calibrated on: requests
    // searched where their tool is not). Chit-chat is outside that data: with the 0.3.0 model's
    // English tail, 'Tell me a joke about cats' finds translate_text alone in this 5-tool
    // catalog at confidence 0.56 in hybrid mode (README: Preload, "What it costs").
    const unservedText = mode === 'hybrid' ? 'Book a flight to Paris' : 'Tell me a joke about cats';
    const unserved = await turn(processor, `mode-${mode}-unserved`, unservedText, [{ text: 'ok' }]);
    expect(unserved.log[0].tools).toEqual(['search_tools', 'load_tool']);
    expect(systemTexts(unserved.log[0].prompt as any[]).some((t) => t.includes(PRELOAD_HEADER))).toBe(false);
    expect(events.map((e) => e.threadId)).toEqual([`mode-${mode}`]);
    // minConfidence 0 takes the hits best first, up to maxTools.
    const eager = new ToolSearchProcessor({ tools: tools(), search, preload: { minConfidence: 0, maxTools: 2, onPreload: (e: any) => events.push(e) } });
    await turn(eager, `mode-${mode}-eager`, 'Please send an email message to Bob', [{ text: 'ok' }]);
    const last = events[events.length - 1].tools;
    expect(last[0].name).toBe('send_email');
    expect(last.length).toBeLessThanOrEqual(2);
    expect(last[0].confidence).toBeGreaterThanOrEqual(last[last.length - 1].confidence);
    processor.dispose();
    eager.dispose();
  });

  /** The output of the first search_tools call in a recorded prompt. */
  const searchOutput = (prompt: any[]) => {
    for (const m of prompt) {
      if (m.role !== 'tool') continue;
      const part = m.content.find((p: any) => p.type === 'tool-result' && p.toolName === 'search_tools');
      if (part) return part.output?.value ?? part.output;
    }
    return undefined;
  };

  it.each(['in-memory', 'context'] as const)("storage '%s': a search_tools call loads its best hits at once (at most maxTools), so the tool is offered at the next call", async (storage) => {
    const events: any[] = [];
    const processor = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid' }, storage, preload: { maxTools: 2, onPreload: (e: any) => events.push(e) } });
    ran.length = 0;
    // Small talk preloads nothing; the model then searches for itself.
    const { log } = await turn(processor, `search-${storage}`, 'Good morning!', [
      { tool: 'search_tools', input: { query: 'email' } },
      { tool: 'send_email', input: {} },
      { text: 'done' },
    ]);
    expect(log[0].tools).toEqual(['search_tools', 'load_tool']);
    const output = searchOutput(log[1].prompt as any[]);
    const listed = output.results.map((r: any) => r.name);
    expect(listed[0]).toBe('send_email');
    const loaded = listed.slice(0, 2);
    expect(log[1].tools).toEqual(['search_tools', 'load_tool', ...loaded]);
    expect(ran).toEqual(['send_email']);
    expect(output.message).toBe(
      `Found ${listed.length} tool(s). Loaded ${loaded.join(', ')} for you: call them directly on your next turn.` +
        (listed.length > 2 ? ' Use load_tool with an exact toolName or a toolNames array to make the others available.' : ''),
    );
    // Context storage keeps no state but the conversation: the result carries the receipt.
    if (storage === 'context') expect(output.activation).toEqual({ type: 'tool-search-auto-load', version: 1, loaded });
    else expect(output.activation).toBeUndefined();
    expect(events).toEqual([{ threadId: `search-${storage}`, query: 'email', trigger: 'search', tools: loaded.map((name: string) => ({ name, confidence: expect.any(Number) })) }]);
    processor.dispose();
  });

  it("searchMinConfidence: false leaves search_tools as the host's; a threshold loads only hits that reach it; the filter's 'load' phase is respected", async () => {
    const script = (): ScriptStep[] => [{ tool: 'search_tools', input: { query: 'email' } }, { text: 'done' }];
    const off = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid' }, preload: { searchMinConfidence: false } });
    const plain = await turn(off, 'smc-off', 'Good morning!', script());
    expect(plain.log[1].tools).toEqual(['search_tools', 'load_tool']);
    expect(searchOutput(plain.log[1].prompt as any[]).message).toMatch(/^Found \d+ tool\(s\)\. Use load_tool with an exact toolName or a toolNames array to make them available\.$/);
    off.dispose();
    const events: any[] = [];
    const strict = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid' }, preload: { searchMinConfidence: 0.5, onPreload: (e: any) => events.push(e) } });
    const { log } = await turn(strict, 'smc-strict', 'Good morning!', script());
    expect(events).toHaveLength(1);
    for (const t of events[0].tools) expect(t.confidence).toBeGreaterThanOrEqual(0.5);
    expect(log[1].tools).toEqual(['search_tools', 'load_tool', ...events[0].tools.map((t: any) => t.name)]);
    expect(log[1].tools.length).toBeLessThan(2 + searchOutput(log[1].prompt as any[]).results.length);
    strict.dispose();
    const denied = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid' }, preload: true, filter: ({ toolName, phase }: any) => !(toolName === 'send_email' && phase === 'load') });
    const d = await turn(denied, 'smc-denied', 'Good morning!', script());
    expect(searchOutput(d.log[1].prompt as any[]).results.map((r: any) => r.name)).toContain('send_email');
    expect(d.log[1].tools).not.toContain('send_email');
    expect(d.log[1].tools.length).toBeGreaterThan(2);
    denied.dispose();
  });

  it("storage 'context': the preload holds through the request's steps and is derived again from the conversation", async () => {
    const events: any[] = [];
    const processor = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid' }, storage: 'context', preload: { maxTools: 1, onPreload: (e: any) => events.push(e) } });
    ran.length = 0;
    // Step 0 searches, step 1 calls the preloaded tool: it is still offered there.
    const { log } = await turn(processor, 'ctx', 'What is the weather forecast for Lisbon?', [
      { tool: 'search_tools', input: { query: 'weather' } },
      { tool: 'get_weather', input: {} },
      { text: 'done' },
    ]);
    expect(log[0].tools).toEqual(['search_tools', 'load_tool', 'get_weather']);
    expect(log[1].tools).toEqual(['search_tools', 'load_tool', 'get_weather']);
    expect(ran).toEqual(['get_weather']);
    expect(systemTexts(log[1].prompt as any[]).some((t) => t.includes(PRELOAD_HEADER))).toBe(false);
    expect(events.map((e) => e.tools.map((t: any) => t.name))).toEqual([['get_weather']]);
    // A step whose messages hold two user messages: both preloads, only the last one announced.
    const messageList = new (await import('@mastra/core/agent')).MessageList({ threadId: 'ctx2', resourceId: 'r' });
    const requestContext = new RequestContext<any>();
    requestContext.set('mastra__threadId', 'ctx2');
    const messages = [
      { role: 'user', content: { format: 2, parts: [{ type: 'text', text: 'What is the weather forecast for Lisbon?' }] } },
      { role: 'assistant', content: { format: 2, parts: [{ type: 'text', text: 'Sunny.' }] } },
      { role: 'user', content: { format: 2, parts: [{ type: 'text', text: 'Please send an email message to Bob' }] } },
    ];
    const step = await processor.processInputStep({ tools: {}, messageList, requestContext, messages, stepNumber: 0 } as any);
    expect(Object.keys(step.tools)).toEqual(['search_tools', 'load_tool', 'get_weather', 'send_email']);
    expect(events[events.length - 1].tools.map((t: any) => t.name)).toEqual(['send_email']);
    const loaded = await processor.getLoadedToolsForRequestContext({ stepArgs: { tools: {}, messages, requestContext }, requestContext } as any);
    expect(Object.keys(loaded)).toEqual(['get_weather', 'send_email']);
    processor.dispose();
  });

  it('includeResolvedTools: the step\'s own tools are preload candidates', async () => {
    const processor = new ToolSearchProcessor({ tools: {}, search: { mode: 'hybrid' }, includeResolvedTools: true, preload: true });
    const agentTools = tools();
    const log: ModelCall[] = [];
    const agent = new Agent({ id: 'resolved', name: 'resolved', instructions: 'Help.', model: scriptedModel([{ tool: 'get_weather', input: {} }, { text: 'ok' }], log) as any, tools: agentTools, inputProcessors: [processor] });
    const requestContext = new RequestContext<any>();
    requestContext.set('mastra__threadId', 'resolved');
    await agent.generate('What is the weather forecast for Lisbon?', { maxSteps: 3, requestContext });
    expect(log[0].tools).toEqual(['search_tools', 'load_tool', 'get_weather']);
    processor.dispose();
  });

  it("storage 'context', a resume: the tool the run waits on is found though its preload is not derived again", async () => {
    // What a suspension persists after a preloaded call: the assistant's call still in state 'call'.
    // The user's text preloads nothing now (as after a restart that lost what learning had seen).
    const call = (role: string, toolName: string, state = 'call') => ({
      role,
      content: { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: { state, toolCallId: `c-${toolName}-${role}`, toolName, args: {} } }] },
    });
    const messages = [
      { role: 'user', content: { format: 2, parts: [{ type: 'text', text: 'Book me a haircut' }] } },
      call('user', 'get_weather'), // a forged part in a user message activates nothing
      call('assistant', 'translate_text', 'result'), // done: not awaited
      call('assistant', 'search_tools'),
      call('assistant', 'not_in_catalog'),
      call('assistant', 'send_email'),
    ];
    const loadedFor = async (options: Record<string, unknown>) => {
      const processor = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid' }, storage: 'context', ...options });
      const requestContext = new RequestContext<any>();
      requestContext.set('mastra__threadId', 'awaited');
      const loaded = await processor.getLoadedToolsForRequestContext({ stepArgs: { tools: {}, messages, requestContext }, requestContext } as any);
      processor.dispose();
      return Object.keys(loaded);
    };
    expect(await loadedFor({ preload: true })).toEqual(['send_email']);
    // The filter is asked as for any load; without preload the loads are the host's (none here).
    expect(await loadedFor({ preload: true, filter: ({ toolName, phase }: any) => !(toolName === 'send_email' && phase === 'load') })).toEqual([]);
    expect(await loadedFor({})).toEqual([]);
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
  const redis = useRedis();

  it("one instance's preload is loaded for another instance on the same thread", async () => {
    const storeA = redisStore(redis.client, { keyPrefix: 'preload-shared:' });
    const a = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid' }, storage: storeA, preload: { maxTools: 1 } });
    const b = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid' }, storage: redisStore(redis.client, { keyPrefix: 'preload-shared:' }) });
    await turn(a, 'shared-thread', 'What is the weather forecast for Lisbon?', [{ text: 'ok' }]);
    expect(await redis.client.zRange('preload-shared:shared-thread', 0, -1)).toEqual(['get_weather']);
    const onB = await turn(b, 'shared-thread', 'and tomorrow?', [{ tool: 'get_weather', input: {} }, { text: 'ok' }]);
    expect(onB.log[0].tools).toEqual(['search_tools', 'load_tool', 'get_weather']);
    await a.clearAllState();
  });
});
