// ToolSearchProcessor's documented deliberate differences from @mastra/core 1.59.0
// (docs/differences.md, ToolSearchProcessor 1–5, plus 6: the strict filter verdict of issue 2).
// Each test shows the reference's behaviour next to ours.
import { describe, expect, it } from 'vitest';
import { Native, Reference, plain, requestContext, step, tool, toolResultMessage } from '../support/tool-search';

const weather = tool('weather', 'Get the current weather');
const calendar = tool('calendar', 'Manage calendar events');

describe('difference 1: the constructor validates its options', () => {
  const bad: Array<[string, any, RegExp]> = [
    ['missing options', undefined, /options must be an object/],
    ['missing tools', {}, /options\.tools must be an object mapping tool keys to Mastra tools; received undefined/],
    ['tools as an array', { tools: [weather] }, /options\.tools must be an object.*received an array/],
    ['a tool that is not an object', { tools: { weather: 'weather' } }, /options\.tools\["weather"\] must be a Mastra tool object/],
    ['a non-string id', { tools: { weather: { id: 5, description: 'x' } } }, /options\.tools\["weather"\]\.id must be a string/],
    ['negative topK', { tools: {}, search: { topK: -1 } }, /options\.search\.topK must be a non-negative integer; received the number -1/],
    ['fractional topK', { tools: {}, search: { topK: 1.5 } }, /options\.search\.topK must be a non-negative integer/],
    ['string topK', { tools: {}, search: { topK: '5' } }, /options\.search\.topK must be a non-negative integer; received the string "5"/],
    ['NaN minScore', { tools: {}, search: { minScore: NaN } }, /options\.search\.minScore must be a finite number/],
    ['negative ttl', { tools: {}, ttl: -1 }, /options\.ttl must be a non-negative finite number/],
    ['infinite ttl', { tools: {}, ttl: Infinity }, /options\.ttl must be a non-negative finite number/],
    ['unknown storage', { tools: {}, storage: 'redis' }, /options\.storage must be 'in-memory', 'context' or a state store such as redisStore\(client\); received the string "redis"/],
    ['non-function filter', { tools: {}, filter: true }, /options\.filter must be a function/],
    ['non-boolean autoLoad', { tools: {}, search: { autoLoad: 'yes' } }, /options\.search\.autoLoad must be a boolean/],
    ['unknown search mode', { tools: {}, search: { mode: 'fast' } }, /options\.search\.mode must be 'compatible', 'enhanced' or 'hybrid'/],
    ['non-boolean includeResolvedTools', { tools: {}, includeResolvedTools: 1 }, /options\.includeResolvedTools must be a boolean/],
    ['non-boolean injectCatalog', { tools: {}, injectCatalog: 'yes' }, /options\.injectCatalog must be a boolean; received the string "yes"/],
  ];
  for (const [what, options, message] of bad) {
    it(`rejects ${what} with a TypeError naming the option`, () => {
      expect(() => new Native(options)).toThrow(TypeError);
      expect(() => new Native(options)).toThrow(message);
    });
  }

  it('rejects duplicate ids (the reference accepts them and hides the first tool from search)', () => {
    const a = tool('same', 'first alpha');
    const b = tool('same', 'second beta');
    expect(() => new Reference({ tools: { a, b } })).not.toThrow();
    expect(() => new Native({ tools: { a, b } })).toThrow(
      'ToolSearchProcessor requires unique tool ids/callable names; duplicate name "same" was provided.',
    );
  });

  it('rejects reserved meta-tool names as keys or ids (the reference accepts them)', () => {
    expect(() => new Reference({ tools: { search_tools: weather } })).not.toThrow();
    expect(() => new Native({ tools: { search_tools: weather } })).toThrow(
      'ToolSearchProcessor tool key and callable name must not use reserved meta-tool names: key="search_tools", name="weather".',
    );
    expect(() => new Native({ tools: { x: tool('load_tool') } })).toThrow(/reserved meta-tool names: key="x", name="load_tool"/);
  });

  it('accepts a key that is another tool\'s id, like every host, and resolves it key-first (id-first with a filter)', async () => {
    const tools = { weather: tool('public_weather'), private_weather: tool('weather') };
    expect(() => new Reference({ tools })).not.toThrow();
    expect(() => new Native({ tools })).not.toThrow();
    for (const [filter, id] of [
      [undefined, 'public_weather'],
      [() => true, 'weather'],
    ] as const) {
      const loadedTool = async (P: any) => {
        const p = new P({ tools, filter });
        await (await step(p, { threadId: 't' })).load({ toolName: 'weather' });
        return (await step(p, { threadId: 't' })).result.tools.weather.id;
      };
      expect(await loadedTool(Reference)).toBe(id);
      expect(await loadedTool(Native)).toBe(id);
    }
  });

  it('accepts topK 0, ttl 0 and a negative minScore like the reference', () => {
    expect(() => new Native({ tools: {}, search: { topK: 0, minScore: -1 }, ttl: 0 })).not.toThrow();
  });
});

describe('difference 2: the Mastra memory thread isolates state', () => {
  const memoryContext = (id: string) => requestContext(undefined, { MastraMemory: { thread: { id }, resourceId: 'r' } });

  it('two memory threads without mastra__threadId do not share loaded tools', async () => {
    for (const [P, shared] of [
      [Reference, true],
      [Native, false],
    ] as const) {
      const p = new P({ tools: { weather } });
      await (await step(p, { rc: memoryContext('thread-a') })).load({ toolName: 'weather' });
      const other = await step(p, { rc: memoryContext('thread-b') });
      expect(other.keys.includes('weather')).toBe(shared);
      expect((await step(p, { rc: memoryContext('thread-a') })).keys).toContain('weather');
    }
  });

  it('mastra__threadId still wins over the memory thread', async () => {
    const p = new Native({ tools: { weather } });
    const rc = requestContext('explicit', { MastraMemory: { thread: { id: 'memory' } } });
    await (await step(p, { rc })).load({ toolName: 'weather' });
    expect((await step(p, { threadId: 'explicit' })).keys).toContain('weather');
    expect((await step(p, { rc: requestContext(undefined, { MastraMemory: { thread: { id: 'memory' } } }) })).keys).not.toContain('weather');
  });
});

describe('difference 3: autoLoad cannot bypass the load filter', () => {
  const mail = tool('mail', 'Send mail');

  it('a search only activates tools the load phase allows', async () => {
    const filter = ({ phase }: any) => phase !== 'load';
    const ref = new Reference({ tools: { mail }, search: { autoLoad: true }, filter });
    await (await step(ref, { threadId: 't' })).search('mail');
    expect((await step(ref, { threadId: 't' })).keys).toContain('mail');

    const ours = new Native({ tools: { mail }, search: { autoLoad: true }, filter });
    const r = await (await step(ours, { threadId: 't' })).search('mail');
    expect(r).toEqual({ results: [], message: 'No tools available to load matching "mail". Try different keywords.' });
    expect((await step(ours, { threadId: 't' })).keys).toEqual(['search_tools']);
  });

  it('allowed results still load; denied ones are left out of the answer', async () => {
    const mail_archive = tool('mail_archive', 'Archive mail');
    const ours = new Native({
      tools: { mail, mail_archive },
      search: { autoLoad: true },
      filter: ({ phase, toolName }: any) => phase !== 'load' || toolName === 'mail',
    });
    const r = await (await step(ours, { threadId: 't' })).search('mail');
    expect(r.results.map((x: any) => x.name)).toEqual(['mail']);
    expect((await step(ours, { threadId: 't' })).keys).toEqual(['search_tools', 'mail']);
  });
});

describe('difference 4: context storage counts only real activations', () => {
  it('a plain search result activates nothing (the reference activates every listed tool)', async () => {
    const messages = [toolResultMessage('search_tools', { results: [{ name: 'weather', description: '', score: 1 }], message: '' })];
    const ref = new Reference({ tools: { weather }, storage: 'context' });
    expect((await step(ref, { messages })).keys).toContain('weather');
    const ours = new Native({ tools: { weather }, storage: 'context' });
    expect((await step(ours, { messages })).keys).not.toContain('weather');
  });

  it('a successful single-form load result activates (the reference ignores it)', async () => {
    const messages = [toolResultMessage('load_tool', { success: true, message: 'ok', toolName: 'weather' })];
    const ref = new Reference({ tools: { weather }, storage: 'context' });
    expect((await step(ref, { messages })).keys).not.toContain('weather');
    const ours = new Native({ tools: { weather }, storage: 'context' });
    expect((await step(ours, { messages })).keys).toContain('weather');
    const failed = [toolResultMessage('load_tool', { success: false, message: 'no', toolName: 'weather' })];
    expect((await step(ours, { messages: failed })).keys).not.toContain('weather');
  });

  it('single-form loads are owned by the messages, so they de-load when the result leaves', async () => {
    const ours = new Native({ tools: { weather }, storage: 'context' });
    await (await step(ours, { threadId: 't' })).load({ toolName: 'weather' });
    expect((await step(ours, { threadId: 't' })).keys).toContain('weather');
    const owned = [toolResultMessage('load_tool', { success: true, message: 'ok', toolName: 'weather' })];
    expect((await step(ours, { threadId: 't', messages: owned })).keys).toContain('weather');
    expect((await step(ours, { threadId: 't', messages: [] })).keys).not.toContain('weather');
    // The reference keeps a single-form load in its supplemental set forever.
    const ref = new Reference({ tools: { weather }, storage: 'context' });
    await (await step(ref, { threadId: 't' })).load({ toolName: 'weather' });
    await step(ref, { threadId: 't', messages: owned });
    expect((await step(ref, { threadId: 't', messages: [] })).keys).toContain('weather');
  });

  it('autoLoad searches carry an activation receipt, and the receipt activates', async () => {
    const ours = new Native({ tools: { weather }, storage: 'context', search: { autoLoad: true } });
    const r = await (await step(ours)).search('weather');
    expect(plain(r)).toEqual({
      results: [{ name: 'weather', description: 'Get the current weather', score: 5.41 }],
      message: 'Found and loaded 1 tool(s): weather. They are available on your next turn — call them directly.',
      activation: { type: 'tool-search-auto-load', version: 1, loaded: ['weather'] },
    });
    expect((await step(ours, { messages: [toolResultMessage('search_tools', r)] })).keys).toEqual(['search_tools', 'weather']);
    // in-memory autoLoad keeps the reference's result shape (no receipt)
    const mem = new Native({ tools: { weather }, search: { autoLoad: true } });
    expect(Object.keys(await (await step(mem)).search('weather'))).toEqual(['results', 'message']);
  });

  it('names read back from messages are re-checked with the load phase', async () => {
    const messages = [toolResultMessage('load_tool', { success: true, loaded: ['weather', 'calendar'] })];
    const filter = ({ phase, toolName }: any) => !(phase === 'load' && toolName === 'weather');
    const ref = new Reference({ tools: { weather, calendar }, storage: 'context', filter });
    expect((await step(ref, { messages })).keys).toEqual(['search_tools', 'load_tool', 'weather', 'calendar']);
    const ours = new Native({ tools: { weather, calendar }, storage: 'context', filter });
    expect((await step(ours, { messages })).keys).toEqual(['search_tools', 'load_tool', 'calendar']);
  });
});

describe('difference 5: dispose()', () => {
  it('exists, stops the processor and is idempotent (the reference has no dispose)', async () => {
    expect((new Reference({ tools: {} }) as any).dispose).toBeUndefined();
    const p = new Native({ tools: { weather } });
    await (await step(p, { threadId: 't' })).load({ toolName: 'weather' });
    p.dispose();
    p.dispose();
    await expect(p.processInputStep({} as any)).rejects.toThrow('has been disposed');
    expect(p.getStateStats()).toEqual({ threadCount: 0, oldestAccessTime: null });
  });
});

describe('the filter verdict must be exactly true', () => {
  it('a truthy non-boolean denies (the reference allows 1); undefined denies in both', async () => {
    const one = () => 1 as any;
    expect((await (await step(new Reference({ tools: { weather }, filter: one }))).search('weather')).results).toHaveLength(1);
    expect((await (await step(new Native({ tools: { weather }, filter: one }))).search('weather')).results).toHaveLength(0);
    const none = () => undefined as any;
    expect((await (await step(new Reference({ tools: { weather }, filter: none }))).search('weather')).results).toHaveLength(0);
    expect((await (await step(new Native({ tools: { weather }, filter: none }))).search('weather')).results).toHaveLength(0);
  });

  it('a rejecting async filter denies', async () => {
    const p = new Native({ tools: { weather }, filter: async () => Promise.reject(new Error('no')) });
    const s = await step(p, { threadId: 't' });
    expect((await s.search('weather')).results).toEqual([]);
    expect((await s.load({ toolName: 'weather' })).success).toBe(false);
  });
});
