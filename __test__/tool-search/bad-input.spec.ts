// Bad and extreme input: clear errors, no crash, no hang, answers that match the reference.
import { describe, expect, it } from 'vitest';
import { Native, Reference, plain, step, tool } from '../support/tool-search';

const words = ['alpha', 'beta', 'gamma', 'delta', 'weather', 'forecast', 'email', 'issue'];
const longDescription = Array.from({ length: 1500 }, (_, i) => words[i % words.length]).join(' ').slice(0, 10_000);
const tools = {
  long_a: tool('long_a', longDescription),
  long_b: tool('long_b', `weather ${longDescription}`),
  short: tool('short', 'Send an email'),
};

describe('ToolSearchProcessor with extreme input', () => {
  it('a 1 MB query, an empty query and punctuation-only queries give the reference answers', async () => {
    const big = Array.from({ length: 120_000 }, (_, i) => words[i % words.length]).join(' ').slice(0, 1_000_000);
    const ref = await step(new Reference({ tools }));
    const ours = await step(new Native({ tools }));
    for (const q of [big, '', '   ', '!!!?...,,;;', '()[]{}"\'', '-_-_-']) {
      expect(await ours.search(q)).toEqual(await ref.search(q));
    }
    expect((await ours.search(big)).results.length).toBe(3);
  });

  it('10,000-character descriptions are indexed and cut to 150 characters in results', async () => {
    const r = await (await step(new Native({ tools }))).search('weather');
    expect(r.results[0].name).toBe('long_b');
    expect(r.results[0].description).toHaveLength(150);
  });

  it('a 1 MB tool name in load_tool is answered without a crash', async () => {
    const s = await step(new Native({ tools }), { threadId: 't' });
    const r = await s.load({ toolName: 'x'.repeat(1_000_000) });
    expect(r.success).toBe(false);
    expect(r.message).toMatch(/ Use search_tools to find available tools\.$/);
  });

  it('strings with lone surrogates and control characters do not crash', async () => {
    const s = await step(new Native({ tools: { odd: tool('odd', 'bad \uD800 surrogate \u0000 nul') } }));
    expect(Array.isArray((await s.search('\uDC00 surrogate \u0000')).results)).toBe(true);
  });

  it('NUL characters in keys and descriptions (the catalog crosses NUL-joined) still index exactly', async () => {
    const odd = {
      'nul\u0000key': tool('nul\u0000key', 'first part\u0000second part'),
      plain: tool('plain', 'second opinion'),
    };
    const ref = await step(new Reference({ tools: odd }));
    const ours = await step(new Native({ tools: odd }));
    for (const q of ['second', 'part', 'nul', 'opinion']) expect(await ours.search(q)).toEqual(await ref.search(q));
    expect((await ours.search('part')).results.map((r: any) => r.name)).toEqual(['nul\u0000key']);
  });

  it('unusual args.tools values are tolerated like the reference', async () => {
    for (const value of [undefined, null, {}]) {
      const a = await (new Reference({ tools }) as any).processInputStep({ tools: value, messageList: { addSystem() {} } });
      const b = await (new Native({ tools }) as any).processInputStep({ tools: value, messageList: { addSystem() {} } });
      expect(Object.keys(b.tools)).toEqual(Object.keys(a.tools));
    }
    const withResolved = new Native({ tools, includeResolvedTools: true });
    const r = await withResolved.processInputStep({ tools: { weird: null, num: 5 } as any, messageList: { addSystem() {} } } as any);
    expect(Object.keys(r.tools)).toEqual(['search_tools', 'load_tool']);
  });

  it('a missing messageList gets a clear TypeError', async () => {
    await expect(new Native({ tools }).processInputStep({ tools: {} } as any)).rejects.toThrow(
      /args\.messageList must be a Mastra MessageList/,
    );
  });

  it('getLoadedToolsForRequestContext tolerates no arguments like the reference', async () => {
    expect(await new Native({ tools }).getLoadedToolsForRequestContext()).toEqual(
      await new Reference({ tools }).getLoadedToolsForRequestContext(),
    );
  });

  it('load_tool with wrong input types returns the wrapper validation error like the reference', async () => {
    const a = await step(new Reference({ tools }));
    const b = await step(new Native({ tools }));
    for (const input of [{ toolName: 5 }, { toolNames: 'short' }, { toolNames: [1, 2] }]) {
      expect(plain(await b.load(input))).toEqual(plain(await a.load(input)));
    }
  });
});
