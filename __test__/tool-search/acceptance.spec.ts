// ToolSearchProcessor's numbered acceptance cases (numbered as in §6 of the project's original
// specification, which is not in this repository: each test states its expectation). Every case
// that the reference and we share runs against both implementations; the deliberate differences
// are in documented-differences.spec.ts.
import { describe, expect, it } from 'vitest';
import { MessageList } from '@mastra/core/agent';
import { makeCoreTool } from '@mastra/core/utils';
import {
  SIX_TOOLS,
  implementations,
  plain,
  requestContext,
  step,
  stepArgs,
  tool,
  toolResultMessage,
  toolsOf,
} from '../support/tool-search';

const SEVEN_TOOLS: Array<[string, string]> = [
  ['github_create_issue', 'Create a new issue on GitHub'],
  ['github_create_pr', 'Create a pull request on GitHub'],
  ['github_search_code', 'Search code in GitHub repositories'],
  ['linear_create_issue', 'Create a new issue in Linear'],
  ['weather_forecast', 'Get weather forecast for a location'],
  ['send_email', 'Send an email message'],
  ['calendar_schedule', 'Schedule a calendar event'],
];

const DEFAULT_SYSTEM =
  'To discover available tools, call search_tools with a keyword query. To add one or more tools to the conversation, call load_tool with a toolName or toolNames array. Tools must be loaded before they can be used.';
const AUTO_LOAD_SYSTEM =
  'To discover available tools, call search_tools with a keyword query. Matching tools are loaded automatically and become available on your next turn — there is no separate load step. After searching, use the tool directly.';

const names = (r: any) => r.results.map((x: any) => x.name);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(implementations)('ToolSearchProcessor (%s)', (_label, P) => {
  const weather = tool('weather', 'Get the current weather');
  const calendar = tool('calendar', 'Manage calendar events');
  const email = tool('email', 'Send emails');

  describe('construction and API', () => {
    it('1. has the reference id, name and description', () => {
      const p = new P({ tools: { weather, calendar } });
      expect([p.id, p.name, p.description]).toEqual([
        'tool-search',
        'Tool Search Processor',
        'Enables dynamic tool discovery and loading via search',
      ]);
    });

    it('2. constructs with and without search options', () => {
      expect(() => new P({ tools: {}, search: { topK: 10, minScore: 0.5 } })).not.toThrow();
      expect(() => new P({ tools: {} })).not.toThrow();
    });

    it('3. missing options and missing tools throw a TypeError', () => {
      expect(() => new (P as any)()).toThrow(TypeError);
      expect(() => new (P as any)({})).toThrow(TypeError);
    });

    it('6. a fresh in-memory processor has empty stats', () => {
      const p = new P({ tools: {} });
      expect(p.getStateStats()).toEqual({ threadCount: 0, oldestAccessTime: null });
      expect(p.cleanupNow()).toBe(0);
    });

    it('7. context storage keeps no thread stats', async () => {
      const p = new P({ tools: { weather }, storage: 'context' });
      const s = await step(p, { threadId: 't' });
      await s.load({ toolName: 'weather' });
      expect(p.getStateStats().threadCount).toBe(0);
      expect(p.cleanupNow()).toBe(0);
    });

    it('accepts the processorIndex the Agent assigns', () => {
      const p: any = new P({ tools: {} });
      p.processorIndex = 3;
      expect(p.processorIndex).toBe(3);
    });
  });

  describe('processInputStep shape', () => {
    it('8. returns only tools, with the two meta-tools', async () => {
      const p = new P({ tools: {} });
      const s = await step(p);
      expect(Object.keys(s.result)).toEqual(['tools']);
      expect(s.keys).toEqual(['search_tools', 'load_tool']);
    });

    it('9. passes args.tools through by identity after the meta-tools', async () => {
      const existing = tool('existing');
      const s = await step(new P({ tools: { weather } }), { tools: { existing } });
      expect(s.keys).toEqual(['search_tools', 'load_tool', 'existing']);
      expect(s.result.tools.existing).toBe(existing);
    });

    it('10. loaded tools are appended in load order, keeping the prefix stable', async () => {
      const p = new P({ tools: { weather, calendar } });
      await (await step(p, { threadId: 't' })).load({ toolName: 'weather' });
      const k1 = (await step(p, { threadId: 't' })).keys;
      await (await step(p, { threadId: 't' })).load({ toolName: 'calendar' });
      const k2 = (await step(p, { threadId: 't' })).keys;
      expect(k1).toEqual(['search_tools', 'load_tool', 'weather']);
      expect(k2).toEqual(['search_tools', 'load_tool', 'weather', 'calendar']);
    });

    it('11. a multi load keeps the requested order', async () => {
      const p = new P({ tools: { weather, calendar } });
      await (await step(p, { threadId: 't' })).load({ toolNames: ['calendar', 'weather'] });
      expect((await step(p, { threadId: 't' })).keys).toEqual(['search_tools', 'load_tool', 'calendar', 'weather']);
    });

    it('12. adds one system message per step; a real MessageList keeps one copy', async () => {
      for (const autoLoad of [false, true]) {
        const p = new P({ tools: { weather }, search: { autoLoad } });
        const calls: string[] = [];
        const messageList = { addSystem: (m: string) => calls.push(m) };
        await p.processInputStep({ ...stepArgs(), messageList });
        expect(calls).toEqual([autoLoad ? AUTO_LOAD_SYSTEM : DEFAULT_SYSTEM]);
      }
      const p = new P({ tools: { weather } });
      const list = new MessageList({ threadId: 't', resourceId: 'r' });
      await p.processInputStep({ ...stepArgs(), messageList: list });
      await p.processInputStep({ ...stepArgs(), messageList: list });
      expect(list.getSystemMessages().length).toBe(1);
    });

    it('13. a loaded tool replaces a same-named pass-through tool', async () => {
      const p = new P({ tools: { weather } });
      const other = tool('weather', 'another weather');
      await (await step(p, { threadId: 't' })).load({ toolName: 'weather' });
      const s = await step(p, { threadId: 't', tools: { weather: other } });
      expect(s.keys.filter((k) => k === 'weather')).toHaveLength(1);
      expect(s.result.tools.weather).toBe(weather);
    });

    it('14. a caller-supplied search_tools overrides the injected one in place', async () => {
      const mine = tool('search_tools', 'custom');
      const s = await step(new P({ tools: { weather } }), { tools: { search_tools: mine } });
      expect(s.result.tools.search_tools).toBe(mine);
      expect(s.keys[0]).toBe('search_tools');
    });

    it('15. integer-like keys enumerate first', async () => {
      const s = await step(new P({ tools: { weather } }), { tools: { '123': tool('n123') } });
      expect(s.keys[0]).toBe('123');
    });

    it('16. pass-through tools ignore the filter', async () => {
      const existing = tool('weather');
      const s = await step(new P({ tools: { calendar }, filter: () => false }), { tools: { weather: existing } });
      expect(s.result.tools.weather).toBe(existing);
    });
  });

  describe('search_tools', () => {
    const seven = () => new P({ tools: toolsOf(SEVEN_TOOLS) });

    it('17. "github" finds only github tools', async () => {
      const r = await (await step(seven())).search('github');
      expect(r.results.length).toBeGreaterThan(0);
      for (const x of r.results) expect(`${x.name} ${x.description}`.toLowerCase()).toContain('github');
    });

    it('18. "issue" finds exactly the two issue tools', async () => {
      const r = await (await step(seven())).search('issue');
      expect(names(r).sort()).toEqual(['github_create_issue', 'linear_create_issue']);
    });

    it('19. "weather" ranks weather_forecast first', async () => {
      expect(names(await (await step(seven())).search('weather'))[0]).toBe('weather_forecast');
    });

    it('20. "create pull request" ranks github_create_pr first', async () => {
      expect(names(await (await step(seven())).search('create pull request'))[0]).toBe('github_create_pr');
    });

    it('21. no match gives the reference message; an empty query finds nothing', async () => {
      const s = await step(seven());
      expect(await s.search('database')).toEqual({
        results: [],
        message: 'No tools found matching "database". Try different keywords.',
      });
      expect((await s.search('')).results).toEqual([]);
    });

    it('22. scores are positive and never increase down the list', async () => {
      const r = await (await step(seven())).search('create');
      const scores = r.results.map((x: any) => x.score);
      for (const s of scores) expect(s).toBeGreaterThan(0);
      for (let i = 1; i < scores.length; i++) expect(scores[i]).toBeLessThanOrEqual(scores[i - 1]);
    });

    it('23. search is case-insensitive', async () => {
      const s = await step(seven());
      expect(names(await s.search('GITHUB'))).toEqual(names(await s.search('github')));
    });

    it('24. topK, minScore and one-letter queries', async () => {
      const tools = toolsOf(SEVEN_TOOLS);
      expect((await (await step(new P({ tools, search: { topK: 2 } }))).search('github')).results.length).toBeLessThanOrEqual(2);
      const r = await (await step(new P({ tools, search: { minScore: 5 } }))).search('github issue');
      for (const x of r.results) expect(x.score).toBeGreaterThan(5);
      expect((await (await step(seven())).search('a')).results).toEqual([]);
    });

    it('25. long descriptions are cut to 150 characters ending in ...', async () => {
      const p = new P({ tools: { long_tool: tool('long_tool', 'x'.repeat(200)) } });
      const d = (await (await step(p)).search('long')).results[0].description;
      expect(d.length).toBe(150);
      expect(d.endsWith('...')).toBe(true);
    });

    it('26. default-mode message', async () => {
      const r = await (await step(seven())).search('github');
      expect(r.message).toBe(
        `Found ${r.results.length} tool(s). Use load_tool with an exact toolName or a toolNames array to make them available.`,
      );
    });

    it('27. exact BM25 scores for "github issue"', async () => {
      const r = await (await step(new P({ tools: toolsOf(SIX_TOOLS) }))).search('github issue');
      expect(r.results.map((x: any) => [x.name, x.score])).toEqual([
        ['github_create_issue', 6.81],
        ['github_create_pr', 3.41],
        ['linear_create_issue', 3.41],
      ]);
    });

    it('28. exact scores for create, weather forecast, email, email email', async () => {
      const s = await step(new P({ tools: toolsOf(SIX_TOOLS) }));
      expect((await s.search('create')).results.map((x: any) => [x.name, x.score])).toEqual([
        ['github_create_issue', 2.95],
        ['github_create_pr', 2.95],
        ['linear_create_issue', 2.95],
      ]);
      expect((await s.search('weather forecast')).results.map((x: any) => [x.name, x.score])).toEqual([['weather_forecast', 8.4]]);
      expect((await s.search('email')).results.map((x: any) => [x.name, x.score])).toEqual([['send_email', 4.31]]);
      expect((await s.search('email email')).results.map((x: any) => [x.name, x.score])).toEqual([['send_email', 8.61]]);
    });

    it('29. minScore is strict', async () => {
      // Score of "email" for send_email, unrounded (computed from §3.3; 2.3065… + 2 boost).
      const tools = toolsOf(SIX_TOOLS);
      const probe = await (await step(new P({ tools, search: { minScore: 4.3 } }))).search('email');
      expect(probe.results).toHaveLength(1);
      let lo = 4.3;
      let hi = 4.32;
      for (let i = 0; i < 60; i++) {
        const mid = (lo + hi) / 2;
        const r = await (await step(new P({ tools, search: { minScore: mid } }))).search('email');
        if (r.results.length) lo = mid;
        else hi = mid;
      }
      // hi is the smallest minScore that excludes: at it there are 0 results, just below there is 1.
      expect((await (await step(new P({ tools, search: { minScore: hi } }))).search('email')).results).toHaveLength(0);
      expect((await (await step(new P({ tools, search: { minScore: hi - 1e-9 } }))).search('email')).results).toHaveLength(1);
    });

    it('30. the name boost applies after the topK*2 cut unless a filter is set', async () => {
      const words = Array.from({ length: 30 }, (_, i) => `w${i}`).join(' ');
      const tools = {
        alpha: tool('alpha', 'data data data'),
        beta: tool('beta', 'data data data'),
        gamma: tool('gamma', 'data data data'),
        data_loader: tool('data_loader', `loads ${words}`),
      };
      const r1 = await (await step(new P({ tools, search: { topK: 1 } }))).search('data');
      expect(r1.results.map((x: any) => [x.name, x.score])).toEqual([['alpha', 0.21]]);
      const r2 = await (await step(new P({ tools, search: { topK: 1 }, filter: () => true }))).search('data');
      expect(r2.results.map((x: any) => [x.name, x.score])).toEqual([['data_loader', 2.06]]);
    });

    it('31. ties keep insertion order grouped by the first matching query word', async () => {
      const tools = {
        a_tool: tool('a_tool', 'blue'),
        b_tool: tool('b_tool', 'red'),
        c_tool: tool('c_tool', 'blue'),
        d_tool: tool('d_tool', 'red'),
      };
      const s = await step(new P({ tools }));
      expect(names(await s.search('blue red'))).toEqual(['a_tool', 'c_tool', 'b_tool', 'd_tool']);
      expect(names(await s.search('red blue'))).toEqual(['b_tool', 'd_tool', 'a_tool', 'c_tool']);
    });

    it('32. partial words do not match; two-letter words boost', async () => {
      const tools = {
        weather: tool('weather', 'Get the weather'),
        forecast_at_sea: tool('forecast_at_sea', 'Marine weather forecast'),
      };
      const s = await step(new P({ tools }));
      expect((await s.search('weath')).results).toEqual([]);
      expect((await s.search('at weather')).results.map((x: any) => [x.name, x.score])).toEqual([
        ['weather', 7.28],
        ['forecast_at_sea', 2.8],
      ]);
    });

    it('33. JavaScript whitespace rules and UTF-16 lengths', async () => {
      const tools = {
        github_issue: tool('github_issue', 'Track bugs and issues'),
        cn_weather: tool('cn_weather', '天气 😀'),
      };
      const s = await step(new P({ tools }));
      expect(names(await s.search('bugs\uFEFFzzz'))).toEqual(['github_issue']);
      expect(names(await s.search('bugs\u0085zzz'))).toEqual([]);
      expect(names(await s.search('天气'))).toEqual(['cn_weather']);
      expect(names(await s.search('天'))).toEqual([]);
      expect(names(await s.search('😀'))).toEqual(['cn_weather']);
      expect(names(await s.search('bugs/track'))).toEqual([]);
    });

    it('35. topK 0 never finds anything', async () => {
      const r = await (await step(new P({ tools: { weather }, search: { topK: 0 } }))).search('weather');
      expect(r.message).toBe('No tools found matching "weather". Try different keywords.');
    });

    it('36. a missing query returns the Tool wrapper validation error', async () => {
      const s = await step(new P({ tools: { weather } }));
      const r = await s.result.tools.search_tools.execute({}, {});
      expect(r.error).toBe(true);
      expect(r.message).toContain('Tool input validation failed for search_tools');
    });
  });

  describe('load_tool', () => {
    it('37-39. single loads and not-found messages', async () => {
      const s = await step(new P({ tools: { weather } }), { threadId: 't' });
      expect(await s.load({ toolName: 'weather' })).toEqual({
        success: true,
        message: 'Tool "weather" loaded successfully. It will be available on your next turn.',
        toolName: 'weather',
      });
      const missing = await s.load({ toolName: 'zzz' });
      expect(missing).toEqual({
        success: false,
        message: 'Tool "zzz" not found. Use search_tools to find available tools.',
        toolName: 'zzz',
      });
    });

    it('40-42. suggestions come from keys, at most three', async () => {
      const s1 = await step(new P({ tools: { weather_forecast: tool('weather_forecast'), weather_current: tool('weather_current') } }));
      expect((await s1.load({ toolName: 'weather' })).message).toContain('Did you mean');
      const s2 = await step(new P({ tools: { weather: tool('weather_tool_id') } }));
      const m2 = (await s2.load({ toolName: 'weath' })).message;
      expect(m2).toContain('Did you mean: weather');
      expect(m2).not.toContain('weather_tool_id');
      const four = Object.fromEntries(['weather_a', 'weather_b', 'weather_c', 'weather_d'].map((k) => [k, tool(k)]));
      const s3 = await step(new P({ tools: four }));
      expect((await s3.load({ toolName: 'weather' })).message).toBe(
        'Tool "weather" not found. Did you mean: weather_a, weather_b, weather_c?',
      );
    });

    it('44. loading twice says already loaded', async () => {
      const s = await step(new P({ tools: { weather } }), { threadId: 't' });
      await s.load({ toolName: 'weather' });
      expect(await s.load({ toolName: 'weather' })).toEqual({
        success: true,
        message: 'Tool "weather" is already loaded and available.',
        toolName: 'weather',
      });
    });

    it('45. loading by id exposes the tool under the id; key and id both expose it', async () => {
      const t = tool('weather_tool_id', 'weather');
      const p = new P({ tools: { weather: t } });
      const s = await step(p, { threadId: 't' });
      expect((await s.load({ toolName: 'weather_tool_id' })).success).toBe(true);
      await s.load({ toolName: 'weather' });
      const next = await step(p, { threadId: 't' });
      expect(next.keys).toEqual(['search_tools', 'load_tool', 'weather_tool_id', 'weather']);
      expect(next.result.tools.weather).toBe(next.result.tools.weather_tool_id);
    });

    it('46. three loads leave one key', async () => {
      const p = new P({ tools: { weather } });
      for (let i = 0; i < 3; i++) await (await step(p, { threadId: 't' })).load({ toolName: 'weather' });
      expect((await step(p, { threadId: 't' })).keys.filter((k) => k === 'weather')).toHaveLength(1);
    });

    it('47-52. multi loads', async () => {
      const p = new P({ tools: { weather, calendar, email } });
      const s = await step(p, { threadId: 't' });
      const r = await s.load({ toolNames: ['weather', 'calendar'] });
      expect(plain(r)).toEqual({
        success: true,
        message: 'Loaded: weather, calendar — available on your next turn',
        loadedCount: 2,
        loaded: ['weather', 'calendar'],
      });
      expect(Object.keys(r)).toEqual(['success', 'message', 'loadedCount', 'loaded', 'notFound', 'alreadyLoaded']);
      expect((await step(p, { threadId: 't' })).keys).not.toContain('email');
      expect(await s.load({ toolNames: [] })).toEqual({ success: false, message: 'toolNames array must not be empty.' });
      const only = await step(new P({ tools: { weather } }), { threadId: 'u' });
      expect(plain(await only.load({ toolNames: ['weather', 'nonexistent', 'calendar'] }))).toMatchObject({
        success: false,
        loaded: ['weather'],
        notFound: ['nonexistent', 'calendar'],
        loadedCount: 1,
      });
      const p2 = new P({ tools: { weather, calendar } });
      const s2 = await step(p2, { threadId: 'v' });
      await s2.load({ toolName: 'weather' });
      expect(plain(await s2.load({ toolNames: ['weather', 'calendar'] }))).toEqual({
        success: true,
        message: 'Loaded: calendar — available on your next turn | Already loaded: weather',
        loadedCount: 1,
        loaded: ['calendar'],
        alreadyLoaded: ['weather'],
      });
      expect(plain(await s2.load({ toolNames: ['weather', 'calendar'] }))).toEqual({
        success: true,
        message: 'Already loaded: weather, calendar',
        loadedCount: 0,
        alreadyLoaded: ['weather', 'calendar'],
      });
      const s3 = await step(new P({ tools: { weather, calendar } }), { threadId: 'w' });
      expect((await s3.load({ toolName: 'weather', toolNames: ['calendar'] })).loadedCount).toBe(2);
      const s4 = await step(new P({ tools: { weather } }), { threadId: 'x' });
      expect(plain(await s4.load({ toolNames: ['weather', 'weather'] }))).toMatchObject({ loaded: ['weather'], loadedCount: 1 });
    });

    it('53-55. exact multi message, multi shape for one name, and the empty call', async () => {
      const p = new P({ tools: { weather, calendar, email } });
      const s = await step(p, { threadId: 't' });
      await s.load({ toolName: 'weather' });
      expect((await s.load({ toolNames: ['calendar', 'weather', 'nope', 'calendar'] })).message).toBe(
        'Loaded: calendar — available on your next turn | Already loaded: weather | Not found: nope',
      );
      expect(plain(await s.load({ toolNames: ['email'] }))).toEqual({
        success: true,
        message: 'Loaded: email — available on your next turn',
        loadedCount: 1,
        loaded: ['email'],
      });
      expect(plain(await s.load({ toolNames: [], toolName: 'weather' }))).toEqual({
        success: true,
        message: 'Already loaded: weather',
        loadedCount: 0,
        alreadyLoaded: ['weather'],
      });
      expect(await s.load({})).toEqual({
        success: false,
        message: 'You must provide either toolName (string) or toolNames (array) to load.',
      });
    });

    it('56. a meta-tool from an old step keeps its old snapshot', async () => {
      const p = new P({ tools: { weather } });
      const old = await step(p, { threadId: 't' });
      const newer = await step(p, { threadId: 't' });
      await newer.load({ toolName: 'weather' });
      expect((await old.load({ toolName: 'weather' })).message).toBe(
        'Tool "weather" loaded successfully. It will be available on your next turn.',
      );
      const latest = await step(p, { threadId: 't' });
      expect((await latest.load({ toolName: 'weather' })).message).toBe('Tool "weather" is already loaded and available.');
    });
  });

  describe('threads and the in-memory store', () => {
    it('57-58. threads are isolated; loads accumulate', async () => {
      const p = new P({ tools: { weather, calendar } });
      await (await step(p, { threadId: 'thread-1' })).load({ toolName: 'weather' });
      await (await step(p, { threadId: 'thread-2' })).load({ toolName: 'calendar' });
      expect((await step(p, { threadId: 'thread-1' })).keys).toEqual(['search_tools', 'load_tool', 'weather']);
      expect((await step(p, { threadId: 'thread-2' })).keys).toEqual(['search_tools', 'load_tool', 'calendar']);
      await (await step(p, { threadId: 'thread-1' })).load({ toolName: 'calendar' });
      expect((await step(p, { threadId: 'thread-1' })).keys).toEqual(['search_tools', 'load_tool', 'weather', 'calendar']);
    });

    it('59. anonymous and empty-string threads share default', async () => {
      const p = new P({ tools: { weather } });
      await (await step(p)).load({ toolName: 'weather' });
      expect((await step(p, { threadId: '' })).keys).toContain('weather');
    });

    it('60. clearState and clearAllState', async () => {
      const p = new P({ tools: { weather } });
      await (await step(p, { threadId: 'thread-1' })).load({ toolName: 'weather' });
      await (await step(p)).load({ toolName: 'weather' });
      await (await step(p, { threadId: 'thread-2' })).load({ toolName: 'weather' });
      p.clearState('thread-1');
      expect((await step(p, { threadId: 'thread-1' })).keys).not.toContain('weather');
      p.clearState();
      expect((await step(p)).keys).not.toContain('weather');
      p.clearAllState();
      expect((await step(p, { threadId: 'thread-2' })).keys).not.toContain('weather');
    });

    it('61. TTL cleanup evicts idle threads', async () => {
      const p = new P({ tools: { weather }, ttl: 50 });
      await (await step(p, { threadId: 't' })).load({ toolName: 'weather' });
      const stats = p.getStateStats();
      expect(stats.threadCount).toBe(1);
      expect(stats.oldestAccessTime).not.toBeNull();
      await sleep(80);
      expect(p.cleanupNow()).toBeGreaterThanOrEqual(1);
      expect((await step(p, { threadId: 't' })).keys).not.toContain('weather');
    });

    it('62. read-only steps create entries; numeric thread ids are distinct from strings', async () => {
      const p = new P({ tools: { weather } });
      await step(p, { threadId: 'a' });
      await step(p, { threadId: 'b' });
      expect(p.getStateStats().threadCount).toBe(2);
      await (await step(p, { threadId: 42 })).load({ toolName: 'weather' });
      p.clearState('42');
      expect((await step(p, { threadId: 42 })).keys).toContain('weather');
    });
  });

  describe('filter', () => {
    it('64. the search phase hides denied tools', async () => {
      const tools = { weather: tool('weather', 'weather now'), weather_alerts: tool('weather_alerts', 'weather alerts') };
      const p = new P({ tools, filter: ({ phase, toolName }: any) => phase !== 'search' || toolName !== 'weather_alerts' });
      expect(names(await (await step(p)).search('weather'))).toEqual(['weather']);
    });

    it('66. an async filter can block search results', async () => {
      const p = new P({ tools: { calendar }, filter: async ({ toolName }: any) => toolName !== 'calendar' });
      expect((await (await step(p)).search('calendar')).results).toEqual([]);
    });

    it('67. the load phase blocks loading', async () => {
      const p = new P({ tools: { weather }, filter: ({ phase }: any) => phase !== 'load' });
      const s = await step(p, { threadId: 't' });
      const r = await s.load({ toolName: 'weather' });
      expect(r.success).toBe(false);
      expect(r.toolName).toBe('weather');
      expect((await step(p, { threadId: 't' })).keys).not.toContain('weather');
    });

    it('68. suggestions never include denied tools', async () => {
      const tools = { weather: tool('weather'), premium_weather: tool('premium_weather') };
      const p = new P({ tools, filter: ({ toolName }: any) => toolName !== 'premium_weather' });
      expect((await (await step(p)).load({ toolName: 'premium' })).message).not.toContain('premium_weather');
    });

    it('69. the filter fills topK from lower-ranked allowed tools', async () => {
      const ids = ['premium_a', 'premium_b', 'premium_c', 'premium_d', 'public_a', 'public_b'];
      const tools = Object.fromEntries(ids.map((id) => [id, tool(id, 'Shared capability')]));
      const p = new P({ tools, search: { topK: 2 }, filter: ({ phase, toolName }: any) => phase !== 'search' || toolName.startsWith('public_') });
      expect(names(await (await step(p)).search('shared'))).toEqual(['public_a', 'public_b']);
    });

    it('70. the filter sees phase, the id, the same tool object and the request context', async () => {
      const t = tool('weather_tool_id', 'Get weather');
      const calls: any[] = [];
      const p = new P({
        tools: { weather: t },
        filter: (a: any) => {
          calls.push([a.phase, a.toolName, a.tool === t, a.requestContext?.get('plan')]);
          return true;
        },
      });
      const rc = requestContext('t', { plan: 'pro' });
      const s = await step(p, { rc });
      await s.search('weather');
      await s.load({ toolName: 'weather' });
      await step(p, { rc });
      expect(calls).toEqual([
        ['search', 'weather_tool_id', true, 'pro'],
        ['load', 'weather_tool_id', true, 'pro'],
        ['active', 'weather_tool_id', true, 'pro'],
      ]);
    });

    it('71. a throwing filter denies', async () => {
      const p = new P({
        tools: { weather },
        filter: () => {
          throw new Error('boom');
        },
      });
      const s = await step(p, { threadId: 't' });
      expect((await s.search('weather')).results).toEqual([]);
      expect((await s.load({ toolName: 'weather' })).success).toBe(false);
    });

    it('72. the active phase hides a loaded tool per request without forgetting it', async () => {
      const p = new P({ tools: { weather }, filter: ({ phase, requestContext: rc }: any) => phase !== 'active' || rc.get('allowWeather') === true });
      await (await step(p, { rc: requestContext('t', { allowWeather: true }) })).load({ toolName: 'weather' });
      expect((await step(p, { rc: requestContext('t', { allowWeather: false }) })).keys).not.toContain('weather');
      expect((await step(p, { rc: requestContext('t', { allowWeather: true }) })).keys).toContain('weather');
    });

    it('filter call count: one load call, then one active call', async () => {
      let count = 0;
      const p = new P({ tools: { weather }, filter: () => (count++, true) });
      await (await step(p, { threadId: 't' })).load({ toolName: 'weather' });
      expect(count).toBe(1);
      await step(p, { threadId: 't' });
      expect(count).toBe(2);
    });
  });

  describe('autoLoad', () => {
    const forecast = tool('weather_forecast', 'Get weather forecast');

    it('74. no load_tool in autoLoad mode', async () => {
      expect((await step(new P({ tools: { forecast }, search: { autoLoad: true } }))).keys).toEqual(['search_tools']);
      expect((await step(new P({ tools: { forecast } }))).keys).toEqual(['search_tools', 'load_tool']);
    });

    it('75-77. search loads its results for the thread', async () => {
      const existing_tool = tool('existing_tool');
      const p = new P({ tools: { weather_forecast: forecast }, search: { autoLoad: true } });
      const s = await step(p, { threadId: 'a', tools: { existing_tool } });
      const r = await s.search('weather');
      expect(r).toEqual({
        results: [{ name: 'weather_forecast', description: 'Get weather forecast', score: 2.41 }],
        message: 'Found and loaded 1 tool(s): weather_forecast. They are available on your next turn — call them directly.',
      });
      const next = await step(p, { threadId: 'a', tools: { existing_tool } });
      expect(next.keys).toEqual(['search_tools', 'existing_tool', 'weather_forecast']);
      expect((await step(p, { threadId: 'b' })).keys).toEqual(['search_tools']);
      expect((await next.search('weather')).message).toMatch(/ Some were already loaded\.$/);
      expect((await next.search('database')).message).toBe('No tools found matching "database". Try different keywords.');
    });

    it('78. works with both storage modes on a thread', async () => {
      for (const storage of ['in-memory', 'context'] as const) {
        const p = new P({ tools: { weather_forecast: forecast }, search: { autoLoad: true }, storage });
        await (await step(p, { threadId: 'thread-auto' })).search('weather');
        expect((await step(p, { threadId: 'thread-auto' })).keys).toContain('weather_forecast');
      }
    });
  });

  describe('context storage (shared behaviour)', () => {
    it('80. load_tool multi results in messages activate their names; other parts do not', async () => {
      const p = new P({ tools: { weather, calendar }, storage: 'context' });
      const messages = [
        toolResultMessage('load_tool', { success: true, loaded: ['weather'] }),
        toolResultMessage('load_tool', { success: true, loaded: ['calendar'] }, 'call'),
        toolResultMessage('other_tool', { loaded: ['calendar'] }),
      ];
      expect((await step(p, { messages })).keys).toEqual(['search_tools', 'load_tool', 'weather']);
      expect((await step(p, { messages: [] })).keys).toEqual(['search_tools', 'load_tool']);
    });

    it('84. multi load: supplemental bridge, then message-owned, then de-loaded', async () => {
      const p = new P({ tools: { weather }, storage: 'context' });
      await (await step(p, { threadId: 't' })).load({ toolNames: ['weather'] });
      expect((await step(p, { threadId: 't' })).keys).toContain('weather');
      const owned = [toolResultMessage('load_tool', { success: true, loaded: ['weather'] })];
      expect((await step(p, { threadId: 't', messages: owned })).keys).toContain('weather');
      expect((await step(p, { threadId: 't', messages: [] })).keys).not.toContain('weather');
      await (await step(p)).load({ toolNames: ['weather'] });
      expect((await step(p)).keys).not.toContain('weather');
    });
  });

  describe('includeResolvedTools', () => {
    const mcp = () => tool('mcp_github_create_issue', 'Create a GitHub issue via MCP');

    it('85. resolved tools are withheld, searchable and loadable by identity', async () => {
      const p = new P({ tools: {}, includeResolvedTools: true });
      const t = mcp();
      const s = await step(p, { threadId: 't', tools: { mcp_github_create_issue: t } });
      expect(s.keys).toEqual(['search_tools', 'load_tool']);
      expect(names(await s.search('github issue'))).toEqual(['mcp_github_create_issue']);
      expect((await s.load({ toolName: 'mcp_github_create_issue' })).success).toBe(true);
      const next = await step(p, { threadId: 't', tools: { mcp_github_create_issue: t } });
      expect(next.result.tools.mcp_github_create_issue).toBe(t);
    });

    it('86. disabled: resolved tools pass through and are not searchable', async () => {
      const t = mcp();
      const s = await step(new P({ tools: {} }), { tools: { mcp_github_create_issue: t } });
      expect(s.result.tools.mcp_github_create_issue).toBe(t);
      expect((await s.search('github')).results).toEqual([]);
    });

    it('87. static and resolved tools are searched together', async () => {
      const p = new P({ tools: { weather_forecast: tool('weather_forecast', 'Get weather forecast') }, includeResolvedTools: true });
      const s = await step(p, { tools: { mcp_send_email: tool('mcp_send_email', 'Send an email') } });
      expect(names(await s.search('weather'))).toEqual(['weather_forecast']);
      expect(names(await s.search('email'))).toEqual(['mcp_send_email']);
    });

    it('88. the filter gates resolved tools per request', async () => {
      const p = new P({ tools: {}, includeResolvedTools: true, filter: ({ requestContext: rc }: any) => rc?.get('allowMcp') === true });
      const tools = { mcp_github_create_issue: mcp() };
      expect((await (await step(p, { tools, rc: requestContext(undefined, { allowMcp: false }) })).search('github')).results).toEqual([]);
      expect(names(await (await step(p, { tools, rc: requestContext(undefined, { allowMcp: true }) })).search('github'))).toEqual([
        'mcp_github_create_issue',
      ]);
    });

    it('89. a makeCoreTool CoreTool is withheld, searchable and loadable', async () => {
      const core = makeCoreTool(mcp() as any, { name: 'mcp_github_create_issue', runtimeContext: undefined } as any);
      const p = new P({ tools: {}, includeResolvedTools: true });
      const s = await step(p, { threadId: 't', tools: { mcp_github_create_issue: core } });
      expect(s.keys).toEqual(['search_tools', 'load_tool']);
      expect(names(await s.search('github'))).toEqual(['mcp_github_create_issue']);
      await s.load({ toolName: 'mcp_github_create_issue' });
      expect((await step(p, { threadId: 't', tools: { mcp_github_create_issue: core } })).result.tools.mcp_github_create_issue).toBe(core);
    });

    it('90. getLoadedToolsForRequestContext with stepArgs returns the resolved instance', async () => {
      const p = new P({ tools: {}, includeResolvedTools: true });
      const t = mcp();
      await (await step(p, { threadId: 't', tools: { mcp_github_create_issue: t } })).load({ toolName: 'mcp_github_create_issue' });
      const stepArgsNow = stepArgs({ threadId: 't', tools: { mcp_github_create_issue: t } });
      const loaded = await p.getLoadedToolsForRequestContext({ stepArgs: stepArgsNow, requestContext: stepArgsNow.requestContext });
      expect(loaded.mcp_github_create_issue).toBe(t);
    });

    it('91. autoLoad with resolved tools', async () => {
      const p = new P({ tools: {}, includeResolvedTools: true, search: { autoLoad: true } });
      const t = mcp();
      const s = await step(p, { threadId: 't', tools: { mcp_github_create_issue: t } });
      expect(s.keys).toEqual(['search_tools']);
      await s.search('github issue');
      expect((await step(p, { threadId: 't', tools: { mcp_github_create_issue: t } })).result.tools.mcp_github_create_issue).toBe(t);
    });

    it('92. an id-less client tool is withheld, never found, but loadable by key', async () => {
      const client = { description: 'Create client invoices', parameters: {} };
      const p = new P({ tools: {}, includeResolvedTools: true });
      const s = await step(p, { threadId: 't', tools: { client_invoice: client } });
      expect(s.keys).toEqual(['search_tools', 'load_tool']);
      expect((await s.search('invoices')).results).toEqual([]);
      expect((await s.load({ toolName: 'client_invoice' })).success).toBe(true);
      expect((await step(p, { threadId: 't', tools: { client_invoice: client } })).result.tools.client_invoice).toBe(client);
    });

    it('93. each request gets its own instance of a shared name', async () => {
      const p = new P({ tools: {}, includeResolvedTools: true });
      const a = tool('whoami', 'Who am I (user A)');
      const b = tool('whoami', 'Who am I (user B)');
      await (await step(p, { threadId: 't', tools: { whoami: a } })).load({ toolName: 'whoami' });
      expect((await step(p, { threadId: 't', tools: { whoami: b } })).result.tools.whoami).toBe(b);
      expect((await step(p, { threadId: 't', tools: { whoami: a } })).result.tools.whoami).toBe(a);
    });

    it('94. a loaded tool that this request does not resolve is absent', async () => {
      const p = new P({ tools: {}, includeResolvedTools: true });
      const t = mcp();
      await (await step(p, { threadId: 't', tools: { mcp_github_create_issue: t } })).load({ toolName: 'mcp_github_create_issue' });
      expect((await step(p, { threadId: 't', tools: {} })).keys).toEqual(['search_tools', 'load_tool']);
      const rc = requestContext('t');
      expect(Object.keys(await p.getLoadedToolsForRequestContext({ requestContext: rc }))).toEqual([]);
      expect(Object.keys(await p.getLoadedToolsForRequestContext({ requestContext: rc, tools: { mcp_github_create_issue: t } }))).toEqual([
        'mcp_github_create_issue',
      ]);
    });
  });
});
