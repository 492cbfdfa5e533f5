// learn (ours): past requests the model served with a catalog tool become evidence for requests
// like them (js/learn/). A real Agent (@mastra/core in the repository) with a scripted model:
// the signal (what is learned and what never is), both scopes, bounds and decay, deletion, bad
// options, and that a request unlike anything learned ranks exactly as without learning.
import { Agent } from '@mastra/core/agent';
import { RequestContext } from '@mastra/core/request-context';
import { createTool } from '@mastra/core/tools';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';

import { ToolSearchProcessor } from '../../index.js';
import { scriptedModel, type ModelCall, type ScriptStep } from '../support/scripted-model';
import { answer, solve, DINNER, DINNER_AGAIN } from '../support/learn';

const { ToolLearning } = require('../../js/learn/index.js');
const { learnOptionsOf } = require('../../js/learn/options.js');

let deniedAfterRun = false;
function catalog() {
  const make = (id: string, description: string, execute: () => Promise<unknown> = async () => ({ ok: id })) =>
    createTool({ id, description, inputSchema: z.object({}).passthrough(), execute });
  return {
    book_table: make('book_table', 'Reserve a table at a restaurant.'),
    get_weather: make('get_weather', 'Get the current weather and forecast for a city.'),
    send_email: make('send_email', 'Send an email message to a recipient.'),
    convert_currency: make('convert_currency', 'Convert an amount between currencies.'),
    flaky: make('flaky', 'Order groceries for delivery.', async () => {
      throw new Error('upstream down');
    }),
    // An MCP server's error as @mastra/mcp returns it (up to 1.12, later with onToolError: 'return')
    track_parcel: make('track_parcel', 'Track a parcel by its tracking number.', async () => ({ isError: true, content: [{ type: 'text', text: 'Error: no such parcel' }] })),
    audited: make('audited', 'Book a taxi ride.', async () => {
      deniedAfterRun = true;
      return { ok: 'audited' };
    }),
  };
}
const passThrough = { echo: createTool({ id: 'echo', description: 'Echo.', inputSchema: z.object({}).passthrough(), execute: async () => ({ ok: 'echo' }) }) };

async function turn(processor: any, text: string, script: ScriptStep[], resource?: string, thread = `t-${Math.random()}`) {
  const log: ModelCall[] = [];
  const agent = new Agent({ id: 'learn', name: 'learn', instructions: 'Help.', model: scriptedModel(script, log) as any, tools: passThrough, inputProcessors: [processor] });
  const requestContext = new RequestContext<any>();
  requestContext.set('mastra__threadId', thread);
  if (resource) requestContext.set('mastra__resourceId', resource);
  const result = await agent.generate(text, { maxSteps: 5, requestContext });
  return { log, result };
}

function searchOutput(result: any) {
  const first = result.steps[0].toolResults[0];
  return first.payload?.result ?? first.output ?? first.result;
}

function processorWith(learn: any, events: any[] = [], mode = 'enhanced') {
  return new ToolSearchProcessor({ tools: catalog(), search: { mode } as any, preload: { onPreload: (e: any) => events.push(e) }, learn, filter: ({ toolName }: any) => !(toolName === 'audited' && deniedAfterRun) });
}

afterEach(() => vi.restoreAllMocks());

describe('ToolSearchProcessor learn: the signal', () => {
  it('a successful catalog call is learned; the next similar request preloads its tool at the first call', async () => {
    const events: any[] = [];
    const processor = processorWith(true, events);
    const before = await turn(processor, DINNER_AGAIN, [{ text: 'ok' }], 'u1');
    expect(before.log[0].tools).not.toContain('book_table');
    await turn(processor, DINNER, solve('book_table'), 'u1');
    expect(processor.getLearningStats()).toMatchObject({ scope: 'resource', examples: 1, resources: 1 });
    events.length = 0;
    const { log } = await turn(processor, DINNER_AGAIN, [{ tool: 'book_table', input: {} }, { text: 'done' }], 'u1');
    expect(log[0].tools).toContain('book_table');
    expect(events[0].tools.find((t: any) => t.name === 'book_table')).toMatchObject({ learned: true });
    processor.dispose();
  });

  it('failed calls (thrown, or an MCP error result), meta-tools, pass-through tools and tools the filter denies are never learned', async () => {
    deniedAfterRun = false;
    const processor = processorWith(true);
    await turn(processor, 'get me some milk and eggs delivered', solve('flaky'), 'u1');
    await turn(processor, 'say hello back to me', [{ tool: 'echo', input: {} }, { text: 'done' }], 'u1');
    await turn(processor, 'find me something', [{ tool: 'search_tools', input: { query: 'anything' } }, { text: 'done' }], 'u1');
    await turn(processor, 'ride to the airport please', solve('audited'), 'u1');
    await turn(processor, 'where is my parcel 1Z999', solve('track_parcel'), 'u1');
    expect(processor.getLearningStats()).toMatchObject({ examples: 0 });
    // ...while a call that returned is (the same run shape)
    await turn(processor, DINNER, solve('book_table'), 'u1');
    expect(processor.getLearningStats()).toMatchObject({ examples: 1 });
    processor.dispose();
  });

  it('without a resource id nothing is learned', async () => {
    const processor = processorWith(true);
    await turn(processor, DINNER, solve('book_table'));
    expect(processor.getLearningStats()).toMatchObject({ examples: 0 });
    processor.dispose();
  });
});

describe('ToolSearchProcessor learn: scopes', () => {
  it("scope 'resource': one resource cannot teach another", async () => {
    const processor = processorWith({ scope: 'resource' });
    await turn(processor, DINNER, solve('book_table'), 'alice');
    expect((await turn(processor, DINNER_AGAIN, [{ text: 'ok' }], 'bob')).log[0].tools).not.toContain('book_table');
    expect((await turn(processor, DINNER_AGAIN, [{ text: 'ok' }], 'alice')).log[0].tools).toContain('book_table');
    processor.dispose();
  });

  it("scope 'global': a tool serves others only once distinct resources agree (minResources, 2 by default)", async () => {
    const processor = processorWith({ scope: 'global' });
    await turn(processor, DINNER, solve('book_table'), 'alice');
    await turn(processor, 'sort out dinner for six on friday at Luigi', solve('book_table'), 'alice');
    expect((await turn(processor, DINNER_AGAIN, [{ text: 'ok' }], 'bob')).log[0].tools).not.toContain('book_table');
    // (alice's own evidence serves alice)
    expect((await turn(processor, DINNER_AGAIN, [{ text: 'ok' }], 'alice')).log[0].tools).toContain('book_table');
    // (a close request: evidence alone preloads only when similar enough, docs/learning.md)
    await turn(processor, 'sort out dinner for two on sunday at Luigi', solve('book_table'), 'carol');
    expect((await turn(processor, DINNER_AGAIN, [{ text: 'ok' }], 'bob')).log[0].tools).toContain('book_table');
    expect(processor.getLearningStats()).toMatchObject({ scope: 'global', examples: 3, resources: 2 });
    processor.dispose();
  });

  it('learn.seed teaches through the same mechanism (seeds count as agreement)', async () => {
    const processor = processorWith({ scope: 'global', seed: { book_table: [DINNER] } });
    expect((await turn(processor, DINNER_AGAIN, [{ text: 'ok' }], 'bob')).log[0].tools).toContain('book_table');
    expect(processor.getLearningStats()).toMatchObject({ examples: 0, seeds: 1 });
    processor.dispose();
  });
});

describe('ToolSearchProcessor learn: unlike anything learned', () => {
  for (const mode of ['compatible', 'enhanced', 'hybrid']) {
    it(`${mode}: a request unlike anything learned ranks and preloads exactly as without learning`, async () => {
      const plainEvents: any[] = [];
      const learnEvents: any[] = [];
      const plain = processorWith(undefined, plainEvents, mode);
      const learning = processorWith({ scope: 'global', seed: { book_table: [DINNER] } }, learnEvents, mode);
      for (const who of ['a', 'b', 'c']) await turn(learning, DINNER, solve('book_table'), who);
      const script: ScriptStep[] = [{ tool: 'search_tools', input: { query: 'weather forecast tomorrow Oslo' } }, { text: 'done' }];
      const a = await turn(plain, 'will it rain in Oslo tomorrow?', script, 'd');
      const b = await turn(learning, 'will it rain in Oslo tomorrow?', script, 'd');
      expect(b.log.map((c) => c.tools)).toEqual(a.log.map((c) => c.tools));
      expect(searchOutput(b.result)).toEqual(searchOutput(a.result));
      expect(searchOutput(a.result).results.length).toBeGreaterThan(0);
      expect(learnEvents.slice(-plainEvents.length || undefined).map((e) => e.tools)).toEqual(plainEvents.map((e) => e.tools));
      plain.dispose();
      learning.dispose();
    });
  }

  it("compatible: search_tools' results stay the host's even for a learned request", async () => {
    const plain = processorWith(undefined, [], 'compatible');
    const learning = processorWith({ seed: { book_table: [DINNER] } }, [], 'compatible');
    const script: ScriptStep[] = [{ tool: 'search_tools', input: { query: DINNER_AGAIN } }, { text: 'done' }];
    const a = await turn(plain, 'hi', script, 'u');
    const b = await turn(learning, 'hi', script, 'u');
    // (learning may preload there: what a search loads may differ, its ranking may not)
    expect(searchOutput(b.result).results).toEqual(searchOutput(a.result).results);
  });

  it('enhanced: a learned request moves its tool to the top of search_tools', async () => {
    const learning = processorWith({ seed: { book_table: [DINNER] } }, [], 'enhanced');
    const script: ScriptStep[] = [{ tool: 'search_tools', input: { query: DINNER_AGAIN } }, { text: 'done' }];
    const { result } = await turn(learning, 'hi', script, 'u');
    expect(searchOutput(result).results[0].name).toBe('book_table');
  });
});

describe('ToolSearchProcessor learn: bounds, decay, deletion', () => {
  const ctx = (resource: string) => ({ get: (k: string) => (k === 'mastra__resourceId' ? resource : undefined) });
  const fakeCatalog = (name: string) => ({ native: { resolve: () => [0] }, idAt: () => name, keyAt: () => name, toolAt: () => ({}) });
  async function teach(learning: any, resource: string, request: string, tool: string, id: string) {
    const messages = [{ role: 'user', content: request }, { role: 'assistant', content: { parts: [{ type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: id, toolName: tool, result: {} } }] } }];
    await learning.observe({ requestContext: ctx(resource), messages }, fakeCatalog(tool), false, async () => true);
  }

  it('keeps at most maxExamples (older, rarer examples go first) and maxBytes', async () => {
    const learning = new ToolLearning(learnOptionsOf({ maxExamples: 10 }, 'T'));
    for (let i = 0; i < 30; i++) await teach(learning, 'u', `request number ${i} about topic ${i}`, `tool${i}`, `c${i}`);
    expect(learning.stats().examples).toBeLessThanOrEqual(10);
    expect(learning.votes('request number 29 about topic 29', ctx('u')).get('tool29')).toBeGreaterThan(0);
    expect(learning.votes('request number 0 about topic 0', ctx('u')).get('tool0')).toBeUndefined();
    const small = new ToolLearning(learnOptionsOf({ maxBytes: 2000 }, 'T'));
    for (let i = 0; i < 30; i++) await teach(small, 'u', `request number ${i} about topic ${i}`, `tool${i}`, `c${i}`);
    expect(small.stats().bytes).toBeLessThanOrEqual(2000);
  });

  it("an example is as old as its call (the message's createdAt): an old conversation replayed teaches old evidence", async () => {
    const learning = new ToolLearning(learnOptionsOf({ halfLifeDays: 1 }, 'T'));
    const call = (createdAt: unknown) => ({ role: 'assistant', createdAt, content: { parts: [{ type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 'old-1', toolName: 'book_table', result: {} } }] } });
    // a call made ten half-lives ago, read back from memory (a fresh process, an old thread)
    await learning.observe({ requestContext: ctx('u'), messages: [{ role: 'user', content: DINNER }, call(new Date(Date.now() - 10 * 86_400_000))] }, fakeCatalog('book_table'), false, async () => true);
    expect(learning.stats().examples).toBe(1);
    expect(learning.votes(DINNER_AGAIN, ctx('u')).get('book_table') ?? 0).toBeLessThan(0.01);
    // a call stamped in the future counts as now; one without a time too
    const fresh = new ToolLearning(learnOptionsOf({ halfLifeDays: 1 }, 'T'));
    await fresh.observe({ requestContext: ctx('u'), messages: [{ role: 'user', content: DINNER }, call('2999-01-01T00:00:00Z')] }, fakeCatalog('book_table'), false, async () => true);
    expect(fresh.votes(DINNER_AGAIN, ctx('u')).get('book_table')).toBeGreaterThan(0.45);
    const untimed = new ToolLearning(learnOptionsOf({ halfLifeDays: 1 }, 'T'));
    await untimed.observe({ requestContext: ctx('u'), messages: [{ role: 'user', content: DINNER }, call(undefined)] }, fakeCatalog('book_table'), false, async () => true);
    expect(untimed.votes(DINNER_AGAIN, ctx('u')).get('book_table')).toBeGreaterThan(0.45);
  });

  it('a call seen again (the conversation replayed) is learned once', async () => {
    const learning = new ToolLearning(learnOptionsOf(true, 'T'));
    for (let i = 0; i < 3; i++) await teach(learning, 'u', DINNER, 'book_table', 'same-call');
    expect(learning.stats().examples).toBe(1);
  });

  it("a deletion holds for the conversations already had: their calls are not learned again, later calls are", async () => {
    const call = (id: string, createdAt: Date) => ({ role: 'assistant', createdAt, content: { parts: [{ type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: id, toolName: 'book_table', result: {} } }] } });
    const history = [{ role: 'user', content: DINNER }, call('c1', new Date(Date.now() - 60_000))];
    const observe = (learning: any, messages: unknown[], resource = 'u') => learning.observe({ requestContext: ctx(resource), messages }, fakeCatalog('book_table'), false, async () => true);
    for (const forget of ['resource', 'all']) {
      const learning = new ToolLearning(learnOptionsOf(true, 'T'));
      await observe(learning, history);
      await observe(learning, history, 'other');
      await (forget === 'resource' ? learning.forgetResource('u') : learning.forgetAll());
      expect(learning.stats().examples).toBe(forget === 'resource' ? 1 : 0);
      // the thread's next step: its history (read from memory) still holds the call
      await observe(learning, history);
      expect(learning.stats().examples, forget).toBe(forget === 'resource' ? 1 : 0);
      expect(learning.votes(DINNER_AGAIN, ctx('u')).get('book_table'), forget).toBeUndefined();
      // a call made after the deletion teaches again
      await new Promise((r) => setTimeout(r, 5));
      await observe(learning, [...history, { role: 'user', content: DINNER_AGAIN }, call('c2', new Date())]);
      expect(learning.votes(DINNER_AGAIN, ctx('u')).get('book_table'), forget).toBeGreaterThan(0.45);
    }
  });

  it('stale habits fade: votes decay with the half-life', async () => {
    const learning = new ToolLearning(learnOptionsOf({ halfLifeDays: 1 }, 'T'));
    const now = Date.now();
    await teach(learning, 'u', DINNER, 'book_table', 'c1');
    const fresh = learning.votes(DINNER_AGAIN, ctx('u')).get('book_table');
    expect(fresh).toBeGreaterThan(0.45);
    vi.spyOn(Date, 'now').mockReturnValue(now + 10 * 86_400_000);
    expect(learning.votes(DINNER_AGAIN, ctx('u')).get('book_table')).toBeLessThan(0.01);
  });

  it("forgetLearnedResource removes one resource's examples, forgetAllLearned all (seeds stay)", async () => {
    const processor = processorWith({ scope: 'global', seed: { send_email: ['mail the report to Ann'] } });
    await turn(processor, DINNER, solve('book_table'), 'alice');
    await turn(processor, 'sort out dinner for three on sunday at Luigi', solve('book_table'), 'carol');
    await expect(processor.forgetLearnedResource('alice')).resolves.toBe(1);
    expect(processor.getLearningStats()).toMatchObject({ examples: 1, resources: 1, seeds: 1 });
    expect((await turn(processor, DINNER_AGAIN, [{ text: 'ok' }], 'bob')).log[0].tools).not.toContain('book_table');
    await processor.forgetAllLearned();
    expect(processor.getLearningStats()).toEqual({ scope: 'global', examples: 0, resources: 0, seeds: 1, bytes: 0, store: 'in-memory', lastOutage: null });
    processor.dispose();
  });

  it('getLearningStats is null when learn is off (forget* still return Promises)', async () => {
    const processor = new ToolSearchProcessor({ tools: catalog() });
    expect(processor.getLearningStats()).toBeNull();
    await expect(processor.forgetLearnedResource('x')).resolves.toBe(0);
    await expect(processor.forgetAllLearned()).resolves.toBeUndefined();
    processor.dispose();
  });
});

describe('ToolSearchProcessor learn: options', () => {
  const make = (learn: unknown) => () => new ToolSearchProcessor({ tools: catalog(), learn } as any);
  it('bad options are TypeErrors naming the option', () => {
    expect(make('yes')).toThrow(/options\.learn must be true, false or \{ scope/);
    expect(make({ scope: 'user' })).toThrow(new TypeError("ToolSearchProcessor: options.learn.scope must be 'resource' or 'global'; received the string \"user\"."));
    expect(make({ maxExamples: 0 })).toThrow(/options\.learn\.maxExamples must be a positive integer/);
    expect(make({ halfLifeDays: -1 })).toThrow(/options\.learn\.halfLifeDays must be a positive number/);
    expect(make({ minConfidence: 2 })).toThrow(/options\.learn\.minConfidence must be a number from 0 to 1/);
    expect(make({ seed: { a: 'x' } })).toThrow(/options\.learn\.seed\["a"\] must be an array of request strings/);
    expect(make({ store: {} })).toThrow(/options\.learn\.store must be 'in-memory' or a learning store/);
  });
  it("true, false, { scope: 'global' } are accepted", () => {
    for (const learn of [true, false, { scope: 'global' }, { scope: 'resource' }]) make(learn)().dispose();
  });
});

describe('ToolSearchProcessor learn: fused preload and the shared-store records', () => {
  it('a confidently learned tool is preloaded alone, marked learned', async () => {
    const events: any[] = [];
    const processor = processorWith(true, events);
    await turn(processor, DINNER, solve('book_table'), 'u1');
    events.length = 0;
    const { log } = await turn(processor, DINNER_AGAIN, [{ tool: 'book_table', input: {} }, { text: 'done' }], 'u1');
    expect(events[0].tools).toEqual([{ name: 'book_table', confidence: expect.any(Number), learned: true }]);
    expect(log[0].tools.filter((t: string) => !['search_tools', 'load_tool', 'echo'].includes(t))).toEqual(['book_table']);
    processor.dispose();
  });

  it('past requests for a sibling of the asked action are not evidence for it (create learned, list asked)', async () => {
    const make = (id: string, description: string) => createTool({ id, description, inputSchema: z.object({}).passthrough(), execute: async () => ({ ok: id }) });
    const siblings = {
      tracker_create_issue: make('tracker_create_issue', 'Create a new issue in a project'),
      tracker_list_issues: make('tracker_list_issues', 'List issues in a project with filters'),
      tracker_get_issue: make('tracker_get_issue', 'Get details of a specific issue'),
      tracker_delete_issue: make('tracker_delete_issue', 'Delete an issue from a project'),
      get_weather: make('get_weather', 'Get the current weather and forecast for a city.'),
    };
    for (const mode of ['enhanced', 'hybrid']) {
      const events: any[] = [];
      const processor = new ToolSearchProcessor({ tools: siblings, search: { mode } as any, preload: { onPreload: (e: any) => events.push(e) }, learn: true });
      for (const past of ['create an issue in the acme web project about the login bug', 'create an issue in the acme web project about the signup bug']) await turn(processor, past, solve('tracker_create_issue'), 'u1');
      events.length = 0;
      // a request like them, for the same action: the learned tool, marked learned
      await turn(processor, 'create an issue in the acme web project about the logout bug', answer, 'u1');
      expect(events[0].tools.find((t: any) => t.name === 'tracker_create_issue'), mode).toMatchObject({ learned: true });
      // the same words asking to list or delete: what was learned speaks for create, not for them
      for (const ask of ['list the issues in the acme web project about the login bug', 'delete the issue in the acme web project about the login bug']) {
        events.length = 0;
        const { log } = await turn(processor, ask, answer, 'u1');
        const offered = (events[0]?.tools ?? []).map((t: any) => t.name);
        expect(offered, `${mode}: ${ask}`).not.toContain('tracker_create_issue');
        expect(log[0].tools, `${mode}: ${ask}`).not.toContain('tracker_create_issue');
      }
      processor.dispose();
    }
  });

  /**
   * A hybrid processor taught `pasts` (each solved with book_table, by u1) and one without
   * learning, both asked CONFIDENT_ASK (the search's confident hit: send_email), with their events.
   */
  const CONFIDENT_ASK = 'email Ann the plan for friday dinner at Luigi';
  async function askedAfter(pasts: string[]) {
    const plainEvents: any[] = [];
    const events: any[] = [];
    const plain = processorWith(true, plainEvents, 'hybrid');
    const processor = processorWith(true, events, 'hybrid');
    for (const past of pasts) await turn(processor, past, solve('book_table'), 'u1');
    await turn(plain, CONFIDENT_ASK, answer, 'u1');
    events.length = 0;
    const { log } = await turn(processor, CONFIDENT_ASK, answer, 'u1');
    return { plain, processor, plainEvents, events, log };
  }

  it('hybrid: even past requests alike in every word do not displace a best the search would preload on its own', async () => {
    // (a model that answered these with book_table, and the call "succeeded")
    const { plain, processor, plainEvents, events } = await askedAfter([CONFIDENT_ASK, 'email Ann the plan for saturday dinner at Luigi']);
    expect(plainEvents.at(-1).tools.map((t: any) => t.name)).toEqual(['send_email']);
    expect(events.at(-1).tools.map((t: any) => t.name)).toEqual(['send_email']);
    // where the search is unsure, what was learned still fills in
    events.length = 0;
    await turn(processor, 'the plan for saturday dinner at Luigi, please', answer, 'u1');
    expect(events.at(-1)?.tools.map((t: any) => t.name)).toContain('book_table');
    plain.dispose();
    processor.dispose();
  });

  it('hybrid: past requests for another tool that share only a few words do not displace a confident zero-shot best', async () => {
    const { plain, processor, plainEvents, events, log } = await askedAfter([DINNER, 'dinner at Luigi for two', 'a table at Luigi tonight']);
    // (the past requests vote for book_table alone, from a distance: beside the search's confident
    // hit that is a weak challenger, and preload offers what it offers without learning)
    expect(plainEvents.at(-1).tools.map((t: any) => t.name)).toEqual(['send_email']);
    expect(events.at(-1).tools).toEqual(plainEvents.at(-1).tools);
    expect(log[0].tools).not.toContain('book_table');
    plain.dispose();
    processor.dispose();
  });

  it("past requests that each share a few words with a request vouch for their tool, whose description shares none", async () => {
    const plainEvents: any[] = [];
    const events: any[] = [];
    const plain = processorWith(true, plainEvents);
    const processor = processorWith(true, events);
    for (const past of ['do I need an umbrella in Oslo', 'umbrella or not for the picnic', 'picnic in the park on saturday in Oslo']) await turn(processor, past, solve('get_weather'), 'u1');
    const ask = 'an umbrella for the picnic in Oslo?';
    const script: ScriptStep[] = [{ tool: 'get_weather', input: {} }, { text: 'done' }];
    expect((await turn(plain, ask, [{ text: 'ok' }], 'u1')).log[0].tools).not.toContain('get_weather');
    const { log } = await turn(processor, ask, script, 'u1');
    expect(log[0].tools).toContain('get_weather');
    expect(events.at(-1).tools.map((t: any) => t.name)).toEqual(['get_weather']);
    // (another resource's request gets nothing from u1's profile in scope 'resource')
    expect((await turn(processor, ask, [{ text: 'ok' }], 'u2')).log[0].tools).not.toContain('get_weather');
    plain.dispose();
    processor.dispose();
  });
});
