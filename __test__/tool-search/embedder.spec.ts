// search.embedder (ours, issue 27 first part): the user's AI SDK EmbeddingModel on the semantic
// side of 'hybrid' search. A deterministic local EmbeddingModel (words mapped onto concept axes,
// so a made-up word can mean "weather" to it and to nothing else) shows the ranking follow it,
// the catalog embedded once per text and within maxEmbeddingsPerCall, and every fault (a throw,
// a hang, a wrong shape) answered by the shipped model's ranking with one warning per outage.
import { MessageList } from '@mastra/core/agent';
import { RequestContext } from '@mastra/core/request-context';
import { createTool } from '@mastra/core/tools';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';

import { createRequire } from 'node:module';
import { join } from 'node:path';

import { ToolSearchProcessor } from '../../index.js';
import { preloadTools } from '../support/preload';
import { runNode } from '../support/run-node';

const AXES: Record<string, number> = {
  weather: 0, forecast: 0, zorblax: 0,
  email: 1, message: 1, recipient: 1, quuxmail: 1,
  calendar: 2, meeting: 2, schedule: 2,
  stock: 3, price: 3, ticker: 3,
  translate: 4, language: 4,
};
const DIM = 8;

type Call = string[];
/** The concept embedder; `fault(values)` may throw, hang or return something else. */
function conceptEmbedder(opts: { maxEmbeddingsPerCall?: number; fault?: (values: string[]) => unknown } = {}) {
  const calls: Call[] = [];
  const embed = (text: string) => {
    const v = new Array(DIM).fill(0);
    v[DIM - 1] = 0.05;
    for (const word of text.toLowerCase().split(/[^a-z]+/)) if (word in AXES) v[AXES[word]] += 1;
    return v;
  };
  const model = {
    specificationVersion: 'v2',
    provider: 'local',
    modelId: 'concepts',
    maxEmbeddingsPerCall: opts.maxEmbeddingsPerCall ?? 100,
    supportsParallelCalls: false,
    async doEmbed({ values }: { values: string[] }) {
      calls.push(values);
      const faulty = opts.fault?.(values);
      if (faulty !== undefined) return faulty as any;
      return { embeddings: values.map(embed) };
    },
  };
  return { model, calls };
}

const tools = () => preloadTools(createTool, z);

async function firstStep(processor: any) {
  const requestContext = new RequestContext<any>();
  requestContext.set('mastra__threadId', 'emb');
  return processor.processInputStep({ tools: {}, messageList: new MessageList({ threadId: 'emb', resourceId: 'r' }), requestContext, messages: [], stepNumber: 0 });
}

async function topNames(processor: any, query: string) {
  const step = await firstStep(processor);
  const { results } = await step.tools.search_tools.execute({ query }, {});
  return results.map((r: any) => r.name);
}

afterEach(() => vi.restoreAllMocks());

describe('search.embedder', () => {
  it("ranks the semantic side with the user's vectors once the catalog is embedded", async () => {
    const { model, calls } = conceptEmbedder();
    const withEmbedder = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid', embedder: model } } as any);
    const without = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid' } });
    expect((await topNames(withEmbedder, 'zorblax'))[0]).toBe('get_weather');
    expect((await topNames(without, 'zorblax'))[0]).not.toBe('get_weather');
    expect((await topNames(withEmbedder, 'quuxmail to Bob'))[0]).toBe('send_email');
    // A lexical match still counts: the fusion is the same, only the vectors differ.
    expect((await topNames(withEmbedder, 'stock price for a ticker symbol'))[0]).toBe('stock_quote');
    // One catalog call with the five tool texts, then one per distinct query.
    expect(calls[0]).toHaveLength(5);
    expect(calls.slice(1)).toEqual([['zorblax'], ['quuxmail to Bob'], ['stock price for a ticker symbol']]);
    withEmbedder.dispose();
    without.dispose();
  });

  it('batches within maxEmbeddingsPerCall and embeds a text once across processors; a repeated query is cached', async () => {
    const { model, calls } = conceptEmbedder({ maxEmbeddingsPerCall: 2 });
    const a = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid', embedder: model } } as any);
    await topNames(a, 'zorblax');
    expect(calls.slice(0, 3).map((c) => c.length)).toEqual([2, 2, 1]);
    const before = calls.length;
    const b = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid', embedder: model } } as any);
    expect((await topNames(b, 'zorblax'))[0]).toBe('get_weather');
    // Same texts, same embedder: the catalog costs nothing; the query is b's first (its own cache).
    expect(calls.slice(before)).toEqual([['zorblax']]);
    await topNames(b, 'zorblax');
    expect(calls.slice(before)).toEqual([['zorblax']]);
    a.dispose();
    b.dispose();
  });

  it('an embedder that throws on queries: the shipped ranking answers, one warning per outage', async () => {
    let broken = false;
    const { model } = conceptEmbedder({ fault: (values) => (broken && values.length === 1 ? Promise.reject(new Error('provider down')) : undefined) });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const processor = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid', embedder: model } } as any);
    expect((await topNames(processor, 'zorblax'))[0]).toBe('get_weather');
    broken = true;
    const fallback = await topNames(new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid' } }), 'quuxmail now');
    expect(await topNames(processor, 'quuxmail now')).toEqual(fallback);
    await topNames(processor, 'quuxmail again');
    await topNames(processor, 'quuxmail once more');
    const warnings = () => warn.mock.calls.filter((c) => String(c[0]).includes('search.embedder failed'));
    expect(warnings()).toHaveLength(1);
    expect(String(warnings()[0][0])).toContain('provider down');
    broken = false;
    expect((await topNames(processor, 'quuxmail to Bob'))[0]).toBe('send_email');
    broken = true;
    await topNames(processor, 'quuxmail later');
    expect(warnings()).toHaveLength(2);
    processor.dispose();
  });

  it('a query embedding slower than embedderTimeoutMs is given up; the search answers without it', async () => {
    const { model } = conceptEmbedder({ fault: (values) => (values.length === 1 ? new Promise(() => {}) : undefined) });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const processor = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid', embedder: model, embedderTimeoutMs: 50 } } as any);
    const t0 = performance.now();
    const names = await topNames(processor, 'weather in Lisbon');
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(names[0]).toBe('get_weather');
    expect(warn.mock.calls.some((c) => String(c[0]).includes('longer than 50 ms'))).toBe(true);
    processor.dispose();
  });

  it('wrong shapes (too few embeddings, another dimension, NaN) fall back to the shipped vectors', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const cases: Array<(values: string[]) => unknown> = [
      (values) => (values.length > 1 ? { embeddings: [[1, 0, 0, 0, 0, 0, 0, 1]] } : undefined),
      (values) => (values.length === 1 ? { embeddings: [[1, 0, 0]] } : undefined),
      (values) => (values.length === 1 ? { embeddings: [[NaN, 0, 0, 0, 0, 0, 0, 1]] } : undefined),
      () => ({ nothing: true }),
    ];
    const plain = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid' } });
    const expected = await topNames(plain, 'zorblax');
    for (const fault of cases) {
      const { model } = conceptEmbedder({ fault });
      const processor = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid', embedder: model } } as any);
      expect(await topNames(processor, 'zorblax')).toEqual(expected);
      processor.dispose();
    }
    expect(warn.mock.calls.filter((c) => String(c[0]).includes('search.embedder failed'))).toHaveLength(cases.length);
    plain.dispose();
  });

  it('a multilingual embedder finds a tool described in another language (its cosines packed close, as such models pack them)', async () => {
    // Three English tools and one described in Chinese; the embedder knows 天氣 means weather
    // and, as multilingual models do, gives every text a large shared component, so all cosines
    // sit within a few hundredths of each other.
    const MULTI: Record<string, number> = { weather: 0, forecast: 0, 天氣: 0, email: 1, 郵件: 1, calendar: 2, stock: 3, price: 3 };
    const multilingual = {
      specificationVersion: 'v2',
      provider: 'local',
      modelId: 'multilingual-concepts',
      maxEmbeddingsPerCall: 100,
      async doEmbed({ values }: { values: string[] }) {
        return {
          embeddings: values.map((text) => {
            const v = new Array(DIM).fill(0);
            v[DIM - 1] = 4;
            for (const word of Object.keys(MULTI)) if (text.toLowerCase().includes(word)) v[MULTI[word]] += 1;
            return v;
          }),
        };
      },
    };
    const catalog = {
      send_email: createTool({ id: 'send_email', description: 'Send an email to a recipient', inputSchema: z.object({}), execute: async () => ({}) }),
      create_event: createTool({ id: 'create_event', description: 'Create a calendar event', inputSchema: z.object({}), execute: async () => ({}) }),
      stock_quote: createTool({ id: 'stock_quote', description: 'Latest stock price for a ticker', inputSchema: z.object({}), execute: async () => ({}) }),
      tianqi: createTool({ id: 'tianqi', description: '查詢城市的天氣預報', inputSchema: z.object({}), execute: async () => ({}) }),
    };
    const knobs = createRequire(__filename)('../../js/embedder.js').EMBEDDER_WEIGHTS;
    const saved = [...knobs];
    const search = async () => {
      const processor = new ToolSearchProcessor({ tools: catalog, search: { mode: 'hybrid', embedder: multilingual } } as any);
      const names = await topNames(processor, 'weather forecast for Lisbon');
      processor.dispose();
      return names;
    };
    try {
      expect((await search())[0]).toBe('tianqi');
      // The shipped model's constant same-script share (0.15 on cosines this close) would bury it.
      knobs.splice(0, 5, saved[0], saved[1], 0.15, saved[3], 0);
      expect((await search())[0]).not.toBe('tianqi');
    } finally {
      knobs.splice(0, 5, ...saved);
    }
  });

  it('bad embedder options are TypeErrors naming the option', () => {
    const { model } = conceptEmbedder();
    const make = (search: Record<string, unknown>) => () => new ToolSearchProcessor({ tools: tools(), search } as any);
    expect(make({ mode: 'hybrid', embedder: 'openai/text-embedding-3-small' })).toThrow(/options\.search\.embedder must be an AI SDK EmbeddingModel/);
    expect(make({ mode: 'hybrid', embedder: {} })).toThrow(/options\.search\.embedder must be an AI SDK EmbeddingModel/);
    expect(make({ mode: 'enhanced', embedder: model })).toThrow(/options\.search\.embedder must be used with search\.mode 'hybrid'/);
    expect(make({ embedder: model })).toThrow(/options\.search\.embedder must be used with search\.mode 'hybrid'/);
    expect(make({ mode: 'hybrid', embedder: model, embedderTimeoutMs: 0 })).toThrow(/options\.search\.embedderTimeoutMs must be a number of milliseconds from 1 to 60000/);
    expect(make({ mode: 'hybrid', embedderTimeoutMs: 100 })).toThrow(/embedderTimeoutMs is used with options\.search\.embedder/);
    expect(make({ mode: 'hybrid', embedder: model })).not.toThrow();
  });

  it('without the model package: the embedder is the semantic side, lexical ranking the fallback, preload lexical', async () => {
    // A child process that cannot resolve the model package (fixtures/without-model-package.cjs).
    const fixtures = join(__dirname, '..', 'fixtures');
    const run = await runNode(['-r', join(fixtures, 'without-model-package.cjs'), join(fixtures, 'embedder-without-model.mjs')], 60_000);
    expect(run.status, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout.trim().split('\n').pop()!);
    // Without an embedder 'hybrid' still needs the package; an explicit search.model must exist.
    expect(out.hybridWithoutEmbedder.code).toBe('MASTRA_NATIVE_MODEL_NOT_FOUND');
    expect(out.explicitMissingModel.code).toBe('MASTRA_NATIVE_MODEL_NOT_FOUND');
    // The embedder's vectors find what lexical search cannot.
    expect(out.enhancedZorblax).toEqual([]);
    expect(out.zorblax[0]).toBe('get_weather');
    // Preload reads the lexical ranking (enhanced mode's confidence).
    expect(out.preloaded).toEqual([['send_email']]);
    // A failing embedder: the lexical ranking answers, one warning saying so.
    expect(out.brokenStock).toEqual(out.enhancedStock);
    expect(out.warnings).toHaveLength(1);
    expect(out.warnings[0]).toContain('searching with the lexical ranking alone');
  });
});

describe('search.embedder timing', () => {
  // (the real bounds are 10 s and 30 s; shortened here through the module's TIMINGS)
  const timings = createRequire(__filename)('../../js/embedder.js').TIMINGS;
  const saved = { ...timings };
  afterEach(() => Object.assign(timings, saved));

  it('only the first step waits (bounded) for a slow catalog; later steps go on; the vectors are used once in', async () => {
    timings.catalogWaitMs = 100;
    let slow = true;
    const { model } = conceptEmbedder({ fault: (values) => (values.length > 1 && slow ? new Promise((r) => setTimeout(() => r(undefined), 0)).then(() => new Promise(() => {})) : undefined) });
    const processor = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid', embedder: model } } as any);
    const t0 = performance.now();
    const first = await topNames(processor, 'zorblax');
    const waited = performance.now() - t0;
    expect(waited).toBeGreaterThanOrEqual(90);
    expect(first[0]).not.toBe('get_weather');
    const t1 = performance.now();
    await topNames(processor, 'zorblax');
    expect(performance.now() - t1).toBeLessThan(90);
    processor.dispose();
    // A catalog whose embedding failed is tried again once retryAfterMs passed.
    slow = false;
    timings.retryAfterMs = 50;
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    let failing = true;
    const flaky = conceptEmbedder({ fault: (values) => (values.length > 1 && failing ? Promise.reject(new Error('catalog down')) : undefined) });
    const retried = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid', embedder: flaky.model } } as any);
    expect((await topNames(retried, 'zorblax'))[0]).not.toBe('get_weather');
    failing = false;
    expect((await topNames(retried, 'zorblax'))[0]).not.toBe('get_weather'); // within retryAfterMs: not yet
    await new Promise((r) => setTimeout(r, 80));
    // During the outage the retry runs in the background (no step waits for it); its vectors
    // are used once in.
    await topNames(retried, 'zorblax');
    await new Promise((r) => setTimeout(r, 20));
    expect((await topNames(retried, 'zorblax'))[0]).toBe('get_weather');
    expect(warn.mock.calls.filter((c) => String(c[0]).includes('catalog down'))).toHaveLength(1);
    retried.dispose();
  });
});
