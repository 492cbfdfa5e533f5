// ToolSearchProcessor on every host of the matrix: the host's own processor and ours, driven
// by the same direct processInputStep calls against that host's MessageList, createTool and
// RequestContext. What the host does per version (its ToolSearchProcessor, as installed in
// hosts/<v>/node_modules/@mastra/core):
//   1.58 = 1.59; 1.60 adds the memory-thread fallback (parseMemoryRequestContext) and the
//   single-form load_tool in context storage; 1.67 adds injectCatalog; 1.67 = 1.71.
// On hosts without injectCatalog ours still offers it, in the newest host's format.
import { describe, expect, it } from 'vitest';

import { HOST_VERSIONS, loadHost, type Host } from '../support/hosts';
// Deterministic PRNG shared with the benchmarks, so every run checks the same sample.
import { rng } from '../../bench/util.mjs';
import { METATOOL_QUERIES, METATOOL_TOOLS } from '../support/metatool';

const NEWEST = HOST_VERSIONS[HOST_VERSIONS.length - 1];

const metaTools = METATOOL_TOOLS;
const allQueries = METATOOL_QUERIES;
const r = rng(7);
const queries = [
  ...Array.from({ length: 300 }, () => allQueries[Math.floor(r() * allQueries.length)]),
  ...metaTools.slice(0, 20).map((t) => t.id),
  'weather weather forecast',
  '',
  '!!! ???',
];

/** Helpers bound to one host's createTool, MessageList and RequestContext. */
function kit(host: Host) {
  const { createTool } = host.tools;
  const { MessageList } = host.agent;
  const { RequestContext } = host.requestContext;
  const tool = (id: string | undefined, description = `${id} tool`) =>
    createTool({ id, description, execute: async () => ({ ran: id }) } as any);
  const requestContext = (entries: Record<string, unknown> = {}) => {
    const rc = new RequestContext();
    for (const [k, v] of Object.entries(entries)) rc.set(k, v as any);
    return rc;
  };
  /** One step; returns the system messages, the offered tools and meta-tool callers. */
  const step = async (p: any, opts: { tools?: Record<string, unknown>; rc?: any; messages?: unknown[]; extra?: Record<string, unknown> } = {}) => {
    const messageList = new MessageList({ threadId: 'thread', resourceId: 'resource' });
    const args = {
      tools: opts.tools ?? {},
      messageList,
      requestContext: opts.rc ?? requestContext({ mastra__threadId: 'thread-1' }),
      messages: opts.messages ?? [],
      stepNumber: 0,
      steps: [],
      retryCount: 0,
      state: {},
      ...(opts.extra ?? {}),
    };
    const result = await p.processInputStep(args);
    return {
      system: messageList.getSystemMessages(),
      keys: Object.keys(result.tools),
      tools: result.tools,
      search: (query: string) => result.tools.search_tools.execute({ query }, {}),
      load: (input: unknown) => result.tools.load_tool.execute(input, {}),
    };
  };
  return { tool, requestContext, step };
}

/** JSON-normal form (drops undefined-valued keys, as the model sees a result). */
const plain = (v: unknown) => JSON.parse(JSON.stringify(v));

/** Offered tools as [key, id, description], to compare tool identity across processors. */
const offered = (tools: Record<string, any>) => Object.entries(tools).map(([k, t]) => [k, t?.id, t?.description]);

/** Filters that log every call, so the call pattern (phase, tool, order) can be compared. */
function filters(log: string[]) {
  return {
    none: undefined,
    sync: ({ toolName, phase }: any) => {
      log.push(`${phase}:${toolName}`);
      return !toolName.startsWith('deny');
    },
    async: async ({ toolName, phase }: any) => {
      log.push(`${phase}:${toolName}`);
      await Promise.resolve();
      return !toolName.startsWith('deny');
    },
    denyAll: ({ toolName, phase }: any) => {
      log.push(`${phase}:${toolName}`);
      return false;
    },
    throws: ({ toolName, phase }: any) => {
      log.push(`${phase}:${toolName}`);
      if (toolName.includes('long')) throw new Error('no');
      return true;
    },
  } as Record<string, any>;
}

/** Tools whose listing exercises every formatting rule. */
function catalogTools(tool: ReturnType<typeof kit>['tool']) {
  return {
    long_151: tool('long_151', 'a'.repeat(151)),
    long_200: tool('long_200', 'Long description word '.repeat(10)),
    exact_150: tool('exact_150', 'b'.repeat(150)),
    exact_147: tool('exact_147', 'c'.repeat(147)),
    exact_148: tool('exact_148', 'd'.repeat(148)),
    // a surrogate pair straddles the cut: the cut is in UTF-16 units, as in JavaScript
    emoji_cut: tool('emoji_cut', 'e'.repeat(146) + '😀'.repeat(10)),
    no_description: tool('no_description', ''),
    deny_me: tool('deny_me', 'Denied by the test filters'),
    keyed_only: tool(undefined, 'A tool without an id'),
    // key/id collision: key "weather" is public_weather; id "weather" is under private_weather
    weather: tool('public_weather', 'Public weather'),
    private_weather: tool('weather', 'Private weather'),
    '7': tool('seven', 'An array-index key enumerates first'),
  };
}

/** A stored assistant message carrying a completed meta-tool result (format 2). */
const resultMessage = (toolName: string, result: unknown) => ({
  id: `m-${toolName}-${JSON.stringify(result).length}`,
  role: 'assistant',
  createdAt: new Date(0),
  content: { format: 2, parts: [{ type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 'c1', toolName, args: {}, result } }] },
});

describe.each(HOST_VERSIONS)('ToolSearchProcessor on host @mastra/core %s', (version) => {
  const host = loadHost(version);
  const Host = host.processors.ToolSearchProcessor;
  const Ours = host.ours.ToolSearchProcessor;
  const { tool, requestContext, step } = kit(host);
  const caps = host.ourHost.host.capabilities;
  const newest = loadHost(NEWEST);
  const newestKit = kit(newest);

  it('capability rows match what the host processor does', async () => {
    // injectCatalog: the host adds a second system message iff the row says it has the option
    const p = new Host({ tools: { a: tool('a', 'Alpha') }, injectCatalog: true });
    expect((await step(p)).system.length === 2).toBe(caps.injectCatalog);
    // key/id collisions: accepted by every host; our row must say so
    expect(() => new Host({ tools: { weather: tool('public_weather'), private_weather: tool('weather') } })).not.toThrow();
    expect(caps.toolKeyIdCollision).toBe('key-first');
    // memory thread: 'parsed' hosts validate the MastraMemory entry
    const bad = requestContext({ MastraMemory: { thread: { id: 5 } } });
    const threw = await step(new Host({ tools: {} }), { rc: bad }).then(
      () => false,
      () => true,
    );
    expect(threw).toBe(caps.toolSearchMemoryThread === 'parsed');
    // context storage: the host counts a single-form load_tool result iff the row says so
    const single = [resultMessage('load_tool', { success: true, message: 'ok', toolName: 'a' })];
    const s = await step(new Host({ tools: { a: tool('a', 'Alpha') }, storage: 'context' }), { messages: single, rc: requestContext() });
    expect(s.keys.includes('a')).toBe(caps.toolSearchContextSingleLoad);
  });

  describe('injectCatalog', () => {
    const combos: Array<[string, boolean, string, boolean]> = [];
    for (const inject of [true, false])
      for (const autoLoad of [false, true])
        for (const filter of ['none', 'sync', 'async', 'denyAll', 'throws']) combos.push([`inject ${inject}, autoLoad ${autoLoad}, filter ${filter}`, inject, filter, autoLoad]);

    it.each(combos)('%s: system messages, offered tools and filter calls', async (_name, inject, filterName, autoLoad) => {
      const hostLog: string[] = [];
      const ourLog: string[] = [];
      const options = (log: string[], t = tool) => ({
        tools: catalogTools(t),
        injectCatalog: inject,
        search: { autoLoad },
        filter: filters(log)[filterName],
      });
      const h = await step(new Host(options(hostLog)));
      const o = await step(new Ours(options(ourLog)));
      expect(o.keys).toEqual(h.keys);
      expect(offered(o.tools)).toEqual(offered(h.tools));
      if (caps.injectCatalog || !inject) {
        expect(o.system).toEqual(h.system);
        expect(ourLog).toEqual(hostLog);
      } else {
        // The host ignores the option; ours lists the catalog exactly as the newest host does.
        expect(h.system).toHaveLength(1);
        const newestLog: string[] = [];
        const n = await newestKit.step(new newest.processors.ToolSearchProcessor(options(newestLog, newestKit.tool)));
        expect(o.system).toEqual(n.system);
        expect(ourLog).toEqual(newestLog);
      }
      // not vacuous: with the option on, a listing appears unless the filter denies all
      const listed = o.system.length === 2;
      expect(listed).toBe(inject && filterName !== 'denyAll');
      if (listed && filterName === 'none') {
        const text = o.system[1].content as string;
        expect(text).toContain('\n\nAvailable tools:\n');
        expect(text).toContain('- `long_151`: ' + 'a'.repeat(147) + '...');
        expect(text).toContain('- `exact_150`: ' + 'b'.repeat(150) + '\n');
        expect(text).toContain('- `no_description`\n');
      }
    });

    it('an empty catalog adds nothing; a second step lists again (cached text, same result)', async () => {
      for (const tools of [{}, catalogTools(tool)]) {
        const h = new Host({ tools, injectCatalog: true });
        const o = new Ours({ tools, injectCatalog: true });
        for (let i = 0; i < 2; i++) {
          const [a, b] = [await step(h), await step(o)];
          if (caps.injectCatalog) expect(b.system).toEqual(a.system);
          expect(b.system.length).toBe(Object.keys(tools).length === 0 ? 1 : 2);
        }
      }
    });

    it('request-resolved tools are listed in merged key order, fresh each step', async () => {
      const staticTools = catalogTools(tool);
      const r1 = { mcp_mail: tool('mcp_mail', 'Read mail'), weather: tool('mcp_weather', 'MCP weather'), '3': tool('three', 'Index key') };
      const r2 = { mcp_mail: tool('mcp_mail', 'Read mail, changed'), deny_mcp: tool('deny_mcp', 'Denied') };
      for (const filterName of ['none', 'async']) {
        const hostLog: string[] = [];
        const ourLog: string[] = [];
        const mk = (P: any, log: string[]) => new P({ tools: staticTools, includeResolvedTools: true, injectCatalog: true, filter: filters(log)[filterName] });
        const h = mk(caps.injectCatalog ? Host : newest.processors.ToolSearchProcessor, hostLog);
        const o = mk(Ours, ourLog);
        const hostStep = caps.injectCatalog ? step : newestKit.step;
        const reqTools = (t: typeof tool, which: number) =>
          which === 1
            ? { mcp_mail: t('mcp_mail', 'Read mail'), weather: t('mcp_weather', 'MCP weather'), '3': t('three', 'Index key') }
            : { mcp_mail: t('mcp_mail', 'Read mail, changed'), deny_mcp: t('deny_mcp', 'Denied') };
        for (const which of [1, 1, 2, 1]) {
          const a = await hostStep(h, { tools: reqTools(caps.injectCatalog ? tool : newestKit.tool, which) });
          const b = await step(o, { tools: which === 1 ? r1 : r2 });
          expect(b.system).toEqual(a.system);
          expect(b.keys).toEqual(a.keys);
        }
        expect(ourLog).toEqual(hostLog);
        expect((await step(o, { tools: r2 })).system[1].content).toContain('Read mail, changed');
      }
    });

    it("search.mode 'enhanced' lists the same catalog (the listing does not depend on ranking)", async () => {
      for (const filterName of ['none', 'sync']) {
        const mk = (mode: string) => new Ours({ tools: catalogTools(tool), injectCatalog: true, search: { mode }, filter: filters([])[filterName] });
        const [a, b] = [await step(mk('compatible')), await step(mk('enhanced'))];
        expect(b.system).toEqual(a.system);
        expect(b.system).toHaveLength(2);
      }
    });

    it('rejects a non-boolean injectCatalog with a TypeError naming the option (the host takes any truthy value)', () => {
      for (const value of ['yes', 1, {}, 0]) {
        expect(() => new Ours({ tools: {}, injectCatalog: value })).toThrow(TypeError);
        expect(() => new Ours({ tools: {}, injectCatalog: value })).toThrow(/options\.injectCatalog must be a boolean/);
        expect(() => new Host({ tools: {}, injectCatalog: value })).not.toThrow();
      }
      expect(() => new Ours({ tools: {}, injectCatalog: undefined })).not.toThrow();
      expect(() => new Ours({ tools: {}, injectCatalog: null })).not.toThrow();
    });
  });

  describe('names', () => {
    const collision = () => ({ weather: tool('public_weather', 'Public weather'), private_weather: tool('weather', 'Private weather') });

    it('a key equal to another tool id is accepted and resolved like the host (key-first; id-first with a filter)', async () => {
      for (const filter of [undefined, () => true]) {
        const h = new Host({ tools: collision(), filter });
        const o = new Ours({ tools: collision(), filter });
        const [a, b] = [await step(h), await step(o)];
        for (const q of ['weather', 'public weather', 'private']) expect(plain(await b.search(q))).toEqual(plain(await a.search(q)));
        for (const input of [{ toolName: 'weather' }, { toolNames: ['private_weather', 'public_weather', 'nope'] }, { toolName: 'weathe' }]) {
          expect(plain(await b.load(input))).toEqual(plain(await a.load(input)));
        }
        const [a2, b2] = [await step(h), await step(o)];
        expect(offered(b2.tools)).toEqual(offered(a2.tools));
        expect(b2.keys).toContain('weather');
      }
    });

    it('duplicate ids and meta-tool names: the host accepts them, ours throws (difference 1)', () => {
      for (const tools of [{ a: tool('same'), b: tool('same') }, { search_tools: tool('x') }, { x: tool('load_tool') }]) {
        expect(() => new Host({ tools })).not.toThrow();
        expect(() => new Ours({ tools })).toThrow(/ToolSearchProcessor (requires unique|tool key and callable name must not use reserved)/);
      }
    });
  });

  it('accepts the 1.71 step arguments (llmRequestStage, llmRequestProcessorIds, runId) like the host', async () => {
    const tools = { weather: tool('weather', 'Weather'), mail: tool('mail', 'Mail') };
    const extra = { llmRequestStage: true, llmRequestProcessorIds: new Set(['tool-search']), runId: 'run-1', messageId: 'm-1' };
    const h = new Host({ tools, injectCatalog: true });
    const o = new Ours({ tools, injectCatalog: true });
    const [a, b] = [await step(h, { extra }), await step(o, { extra })];
    if (caps.injectCatalog) expect(b.system).toEqual(a.system);
    expect(plain(await b.load({ toolName: 'weather' }))).toEqual(plain(await a.load({ toolName: 'weather' })));
    const [a2, b2] = [await step(h, { extra }), await step(o, { extra })];
    expect(offered(b2.tools)).toEqual(offered(a2.tools));
    expect(b2.keys).toEqual(['search_tools', 'load_tool', 'weather']);
  });

  describe('thread id', () => {
    const memory = (id: unknown) => requestContext({ MastraMemory: { thread: { id }, resourceId: 'r' } });

    it('memory threads without mastra__threadId: isolated on 1.60+ hosts like ours; shared on 1.58/1.59 (difference 2)', async () => {
      const h = new Host({ tools: { weather: tool('weather') } });
      const o = new Ours({ tools: { weather: tool('weather') } });
      for (const p of [h, o]) await (await step(p, { rc: memory('thread-a') })).load({ toolName: 'weather' });
      const [a, b] = [await step(h, { rc: memory('thread-b') }), await step(o, { rc: memory('thread-b') })];
      expect(b.keys).toEqual(['search_tools', 'load_tool']);
      expect(a.keys.includes('weather')).toBe(caps.toolSearchMemoryThread !== 'parsed');
      expect((await step(o, { rc: memory('thread-a') })).keys).toContain('weather');
    });

    it('a malformed MastraMemory entry: the same error as the host on 1.60+ hosts', async () => {
      const bad = [{ thread: { id: 5 } }, 'text', { thread: null }, { thread: { id: 't' }, resourceId: 3 }];
      for (const entry of bad) {
        const rc = () => requestContext({ MastraMemory: entry });
        const outcome = (p: any) => step(p, { rc: rc() }).then(() => 'ok', (e: Error) => e.message);
        const [a, b] = [await outcome(new Host({ tools: {} })), await outcome(new Ours({ tools: {} }))];
        if (caps.toolSearchMemoryThread === 'parsed') expect(b).toEqual(a);
        else expect([a, b]).toEqual(['ok', 'ok']);
      }
      // mastra__threadId wins without looking at the memory entry, on every host
      const rc = () => requestContext({ mastra__threadId: 't', MastraMemory: 'text' });
      await expect(step(new Ours({ tools: {} }), { rc: rc() })).resolves.toBeDefined();
      await expect(step(new Host({ tools: {} }), { rc: rc() })).resolves.toBeDefined();
    });
  });

  describe('context storage', () => {
    const tools = () => ({ weather: tool('weather', 'Weather'), mail: tool('mail', 'Mail') });

    it('a single-form load_tool result activates its tool: on 1.60+ hosts as ours; 1.58/1.59 miss it (difference 4)', async () => {
      const messages = [resultMessage('load_tool', { success: true, message: 'ok', toolName: 'weather' })];
      const [a, b] = [
        await step(new Host({ tools: tools(), storage: 'context' }), { messages }),
        await step(new Ours({ tools: tools(), storage: 'context' }), { messages }),
      ];
      expect(b.keys).toEqual(['search_tools', 'load_tool', 'weather']);
      if (caps.toolSearchContextSingleLoad) expect(offered(b.tools)).toEqual(offered(a.tools));
      else expect(a.keys).toEqual(['search_tools', 'load_tool']);
    });

    it('multi-form results activate on every host alike; a plain search result activates only on the host (difference 4)', async () => {
      const multi = [resultMessage('load_tool', { success: true, message: 'ok', loadedCount: 1, loaded: ['mail'] })];
      const [a, b] = [
        await step(new Host({ tools: tools(), storage: 'context' }), { messages: multi }),
        await step(new Ours({ tools: tools(), storage: 'context' }), { messages: multi }),
      ];
      expect(offered(b.tools)).toEqual(offered(a.tools));
      expect(b.keys).toEqual(['search_tools', 'load_tool', 'mail']);
      const search = [resultMessage('search_tools', { results: [{ name: 'weather', description: 'Weather', score: 1 }], message: 'Found 1 tool(s).' })];
      const [c, d] = [
        await step(new Host({ tools: tools(), storage: 'context' }), { messages: search }),
        await step(new Ours({ tools: tools(), storage: 'context' }), { messages: search }),
      ];
      expect(c.keys).toEqual(['search_tools', 'load_tool', 'weather']);
      expect(d.keys).toEqual(['search_tools', 'load_tool']);
    });
  });

  describe('MetaTool catalog (199 tools), bounded differential', () => {
    const metaToolsFor = () => Object.fromEntries(metaTools.map((t) => [t.id, tool(t.id, t.description)]));

    for (const [label, config] of [
      ['topK 5', { search: { topK: 5 } }],
      ['topK 3, minScore 1.5, filter', { search: { topK: 3, minScore: 1.5 } }],
    ] as const) {
      it(`search_tools results, scores, messages and filter calls are identical (${label}, ${queries.length} queries)`, async () => {
        const hostLog: string[] = [];
        const ourLog: string[] = [];
        const withFilter = label.includes('filter');
        const mk = (P: any, log: string[]) =>
          new P({ tools: metaToolsFor(), ...config, filter: withFilter ? filters(log).sync : undefined, injectCatalog: caps.injectCatalog });
        const [a, b] = [await step(mk(Host, hostLog)), await step(mk(Ours, ourLog))];
        let found = 0;
        const mismatches: unknown[] = [];
        for (const q of queries) {
          const [x, y] = [await a.search(q), await b.search(q)];
          if (JSON.stringify(x) !== JSON.stringify(y)) mismatches.push({ q, host: x, ours: y });
          if (y.results.length > 0) found++;
        }
        expect(mismatches).toEqual([]);
        expect(found).toBeGreaterThan(queries.length / 2);
        expect(ourLog).toEqual(hostLog);
        if (caps.injectCatalog) expect(b.system).toEqual(a.system);
      });
    }

    it('load_tool responses and the tools offered next are identical (in-memory and context storage)', async () => {
      const ids = metaTools.map((t) => t.id);
      const requests: unknown[] = [
        { toolName: ids[0] },
        { toolName: ids[0] },
        { toolName: 'weath' },
        { toolName: 'zzz_nothing' },
        { toolNames: [ids[1], ids[2], 'nope', ids[1]] },
        { toolNames: [] },
        { toolName: ids[4], toolNames: ['missing', ids[4]] },
        {},
      ];
      for (const storage of ['in-memory', 'context']) {
        const h = new Host({ tools: metaToolsFor(), storage });
        const o = new Ours({ tools: metaToolsFor(), storage });
        const messages: unknown[] = [];
        // Where the host's context store misses single-form loads (difference 4), a name it
        // only holds in its same-process set comes last: the same tools, in another order.
        const sameOrder = storage === 'in-memory' || caps.toolSearchContextSingleLoad;
        const order = (keys: string[]) => (sameOrder ? keys : [...keys].sort());
        for (const input of requests) {
          const [a, b] = [await step(h, { messages }), await step(o, { messages })];
          expect(order(b.keys)).toEqual(order(a.keys));
          const [x, y] = [await a.load(input), await b.load(input)];
          expect(y).toEqual(x);
          messages.push(resultMessage('load_tool', x));
        }
        const [a, b] = [await step(h, { messages }), await step(o, { messages })];
        const byKey = (t: Record<string, any>) => order(Object.keys(t)).map((k) => [k, t[k]?.id, t[k]?.description]);
        expect(byKey(b.tools)).toEqual(byKey(a.tools));
        expect(b.keys.length).toBeGreaterThan(3);
      }
    });
  });
});
