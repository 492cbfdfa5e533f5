// search.embedder under faults (security/robustness review, items 3, 5 and 6): an embedder that is
// known to be failing never makes a step wait; a step waiting on it keeps Node alive; degenerate
// or oversized vectors fall back like invalid ones; the query cache is bounded by bytes and freed
// by dispose(). Real processors throughout, with a scripted AI SDK EmbeddingModel (words mapped
// onto concept axes, so a made-up word can mean "weather" to it and to nothing else).
import { MessageList } from '@mastra/core/agent';
import { RequestContext } from '@mastra/core/request-context';
import { createTool } from '@mastra/core/tools';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';

import { createRequire } from 'node:module';
import { join } from 'node:path';

import { SkillSearchProcessor, ToolSearchProcessor } from '../../index.js';
import { preloadTools } from '../support/preload';
import { runNode } from '../support/run-node';
import { call, step as skillStep, tempSkillsWorkspace, type TempWorkspace } from '../support/skill-search';

const embedderModule = createRequire(__filename)('../../js/embedder.js');
const { decodeVector, encodeVector, MAX_DIMENSIONS } = embedderModule;

const AXES: Record<string, number> = {
  weather: 0, forecast: 0, zorblax: 0,
  email: 1, message: 1, recipient: 1, quuxmail: 1,
  calendar: 2, meeting: 2, schedule: 2,
  stock: 3, price: 3, ticker: 3,
  translate: 4, language: 4,
  rust: 5, blorptastic: 5,
};
const DIM = 8;
const conceptVector = (text: string, dim = DIM) => {
  const v = new Array(dim).fill(0);
  v[dim - 1] = 0.05;
  for (const word of text.toLowerCase().split(/[^a-z]+/)) if (word in AXES) v[AXES[word]] += 1;
  return v;
};

/** What a scripted call does: answer, hang forever, throw, answer late, or answer with `embeddings`. */
type Behaviour = 'ok' | 'hang' | 'throw' | { lateMs: number } | { embeddings: (values: string[]) => unknown };

/** A scripted EmbeddingModel: catalogs (several texts) and queries (one) behave as scripted. */
function scriptedEmbedder() {
  const script = { catalog: 'ok' as Behaviour, query: 'ok' as Behaviour };
  const calls: string[][] = [];
  const model = {
    specificationVersion: 'v2',
    provider: 'local',
    modelId: 'scripted',
    maxEmbeddingsPerCall: 100,
    supportsParallelCalls: false,
    async doEmbed({ values }: { values: string[] }) {
      calls.push(values);
      const behaviour = values.length > 1 ? script.catalog : script.query;
      if (behaviour === 'hang') return new Promise(() => {});
      if (behaviour === 'throw') throw new Error('provider down');
      if (typeof behaviour === 'object' && 'embeddings' in behaviour) return { embeddings: behaviour.embeddings(values) };
      if (typeof behaviour === 'object') await new Promise((r) => setTimeout(r, behaviour.lateMs));
      return { embeddings: values.map((t) => conceptVector(t)) };
    },
  };
  return { model, script, calls };
}

const tools = () => preloadTools(createTool, z);
const extraTool = (id: string) => ({ [id]: createTool({ id, description: `Look up ${id} records`, inputSchema: z.object({}), execute: async () => ({}) }) });

async function stepOf(processor: any, stepTools: Record<string, unknown> = {}) {
  const requestContext = new RequestContext<any>();
  requestContext.set('mastra__threadId', 'faults');
  return processor.processInputStep({ tools: stepTools, messageList: new MessageList({ threadId: 'faults', resourceId: 'r' }), requestContext, messages: [], stepNumber: 0 });
}
async function search(step: any, query: string): Promise<string[]> {
  return (await step.tools.search_tools.execute({ query }, {})).results.map((r: any) => r.name);
}
/** How long `work` took, in ms, and its result. */
async function timed<T>(work: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const result = await work();
  return [performance.now() - t0, result];
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const embedderWarnings = (warn: ReturnType<typeof vi.spyOn>) => warn.mock.calls.map((c) => String(c[0])).filter((m) => m.includes('search.embedder failed'));

// (the real bounds are 10 s and 30 s; shortened here through the module's TIMINGS)
const saved = { ...embedderModule.TIMINGS };
afterEach(() => {
  Object.assign(embedderModule.TIMINGS, saved);
  vi.restoreAllMocks();
});

describe('an embedder known to be failing never makes a step wait (item 3)', () => {
  it('a hanging catalog: the first step waits its bound once; new request tool sets do not wait', async () => {
    embedderModule.TIMINGS.catalogWaitMs = 1500;
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { model, script } = scriptedEmbedder();
    script.catalog = 'hang';
    const processor = new ToolSearchProcessor({ tools: tools(), includeResolvedTools: true, search: { mode: 'hybrid', embedder: model } } as any);
    const [first] = await timed(() => stepOf(processor));
    expect(first).toBeGreaterThanOrEqual(1400);
    for (const id of ['invoices', 'shipments', 'tickets']) {
      const [ms, step] = await timed(() => stepOf(processor, extraTool(id)));
      expect(ms, `the step with tool set ${id}`).toBeLessThan(700);
      expect(await search(step, id)).toContain(id);
    }
    // One warning for the outage, saying the catalog took too long.
    expect(embedderWarnings(warn)).toHaveLength(1);
    expect(embedderWarnings(warn)[0]).toContain('longer than 1500 ms');
    processor.dispose();
  });

  it('a failed catalog is retried in the background: the retry does not make the step wait, and its vectors are used once in', async () => {
    embedderModule.TIMINGS.catalogWaitMs = 1500;
    embedderModule.TIMINGS.retryAfterMs = 50;
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { model, script } = scriptedEmbedder();
    script.catalog = 'throw';
    const processor = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid', embedder: model } } as any);
    expect(await search(await stepOf(processor), 'zorblax')).not.toContain('get_weather');
    await sleep(80);
    // The embedder answers again, slowly: the step goes on without waiting for it.
    script.catalog = { lateMs: 1000 };
    const [ms, step] = await timed(() => stepOf(processor));
    expect(ms).toBeLessThan(700);
    expect((await search(step, 'zorblax'))[0]).not.toBe('get_weather');
    await sleep(1300);
    expect((await search(await stepOf(processor), 'zorblax'))[0]).toBe('get_weather');
    processor.dispose();
  });

  it('a hanging query embedder: one bounded wait, then no search of the outage waits (items 3 and 6d); a background retry ends the outage', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { model, script } = scriptedEmbedder();
    const processor = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid', embedder: model, embedderTimeoutMs: 800 } } as any);
    const step = await stepOf(processor);
    expect((await search(step, 'zorblax'))[0]).toBe('get_weather');
    script.query = 'hang';
    const [firstMs] = await timed(() => search(step, 'quuxmail one'));
    expect(firstMs).toBeGreaterThanOrEqual(750);
    // The rest of the turn (preload's search, the model's searches) goes on without waiting.
    const [restMs] = await timed(async () => {
      await search(step, 'quuxmail two');
      await search(step, 'quuxmail three');
      await search(step, 'quuxmail four');
    });
    expect(restMs).toBeLessThan(600);
    expect(embedderWarnings(warn)).toHaveLength(1);
    // The embedder answers again: a search of the outage starts a retry without waiting for it;
    // its vector answers the same query next time, and later queries wait (bounded) again.
    script.query = 'ok';
    await sleep(900);
    await search(step, 'quuxmail to Bob');
    await sleep(20);
    expect((await search(step, 'quuxmail to Bob'))[0]).toBe('send_email');
    expect((await search(step, 'zorblax forecast'))[0]).toBe('get_weather');
    expect(embedderWarnings(warn)).toHaveLength(1);
    processor.dispose();
  });

  describe('skills', () => {
    let fx: TempWorkspace;
    beforeAll(() => {
      fx = tempSkillsWorkspace();
    });
    afterAll(() => fx.cleanup());

    it('a throwing query embedder: only the first search of the outage waits', async () => {
      vi.spyOn(console, 'warn').mockImplementation(() => {});
      const { model, script } = scriptedEmbedder();
      const processor = new SkillSearchProcessor({ workspace: fx.make(), search: { mode: 'hybrid', embedder: model, embedderTimeoutMs: 800 } } as any);
      const names = async (query: string) => (await call((await skillStep(processor, { threadId: 'faults' })).tools.search_skills, { query })).results.map((r: any) => r.name);
      expect((await names('blorptastic'))[0]).toBe('rust-style');
      script.query = 'hang';
      const [firstMs] = await timed(() => names('blorptastic one'));
      expect(firstMs).toBeGreaterThanOrEqual(750);
      const [restMs] = await timed(async () => {
        await names('blorptastic two');
        await names('blorptastic three');
      });
      expect(restMs).toBeLessThan(600);
      processor.dispose();
    });
  });
});

describe('a step waiting on the embedder keeps Node alive (item 5)', () => {
  it('a script whose embedder never settles prints its results after the timeouts and exits 0 after printing', async () => {
    const root = join(__dirname, '..', '..');
    const script = `
      const { createTool } = require('@mastra/core/tools');
      const { MessageList } = require('@mastra/core/agent');
      const { RequestContext } = require('@mastra/core/request-context');
      const { z } = require('zod');
      const { ToolSearchProcessor } = require(${JSON.stringify(join(root, 'index.js'))});
      require(${JSON.stringify(join(root, 'js', 'embedder.js'))}).TIMINGS.catalogWaitMs = 300;
      const { preloadDefs } = require(${JSON.stringify(join(root, '__test__', 'fixtures', 'preload-defs.cjs'))});
      const tools = () => Object.fromEntries(preloadDefs.map(([id, description]) => [id, createTool({ id, description, inputSchema: z.object({}).passthrough(), execute: async () => ({}) })]));
      const embedder = (hangs) => ({ specificationVersion: 'v2', provider: 'local', modelId: 'never', maxEmbeddingsPerCall: 100,
        doEmbed: ({ values }) => (hangs(values) ? new Promise(() => {}) : Promise.resolve({ embeddings: values.map((_, i) => [1, i, 0.5]) })) });
      const search = async (p, query) => {
        const rc = new RequestContext(); rc.set('mastra__threadId', 't');
        const s = await p.processInputStep({ tools: {}, messageList: new MessageList({ threadId: 't', resourceId: 'r' }), requestContext: rc, messages: [], stepNumber: 0 });
        return (await s.tools.search_tools.execute({ query }, {})).results.map((r) => r.name);
      };
      console.warn = () => {};
      (async () => {
        // Every call hangs: the catalog's wait.
        const catalogHangs = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid', embedder: embedder(() => true), embedderTimeoutMs: 200 } });
        console.log(JSON.stringify({ catalogHangs: await search(catalogHangs, 'weather') }));
        // The catalog answers, its queries hang: the query's wait.
        const queryHangs = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid', embedder: embedder((values) => values.length === 1), embedderTimeoutMs: 200 } });
        console.log(JSON.stringify({ queryHangs: await search(queryHangs, 'weather') }));
      })();
      process.on('exit', (code) => console.log(JSON.stringify({ exit: code })));`;
    const run = await runNode(['-e', script], 60_000);
    expect(run.stderr).toBe('');
    const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => Object.keys(l)[0])).toEqual(['catalogHangs', 'queryHangs', 'exit']);
    expect(lines[0].catalogHangs[0]).toBe('get_weather');
    expect(lines[1].queryHangs[0]).toBe('get_weather');
    expect(run.status).toBe(0);
  }, 70_000);
});

describe('degenerate and oversized vectors (items 6a, 6b)', () => {
  async function fallbackNames(query: string) {
    const plain = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid' } });
    const names = await search(await stepOf(plain), query);
    plain.dispose();
    return names;
  }

  it('all-zero, constant or near-zero catalog vectors fall back like invalid ones, one warning each', async () => {
    const cases: Array<[string, (values: string[]) => unknown]> = [
      ['all zero', (values) => values.map(() => new Array(DIM).fill(0))],
      ['one all-zero vector', (values) => values.map((t, i) => (i === 2 ? new Array(DIM).fill(0) : conceptVector(t)))],
      ['constant', (values) => values.map(() => new Array(DIM).fill(0.25))],
      ['near-zero norm', (values) => values.map((t) => conceptVector(t).map((x) => x * 1e-30))],
    ];
    const expected = await fallbackNames('zorblax weather');
    for (const [label, embeddings] of cases) {
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
      const { model, script } = scriptedEmbedder();
      script.catalog = { embeddings };
      const processor = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid', embedder: model } } as any);
      const step = await stepOf(processor);
      expect(await search(step, 'zorblax weather'), label).toEqual(expected);
      await search(step, 'zorblax weather again');
      expect(embedderWarnings(warn), label).toHaveLength(1);
      expect(embedderWarnings(warn)[0], label).toMatch(/degenerate/);
      processor.dispose();
      warn.mockRestore();
    }
  });

  it('a constant query vector falls back for that query', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { model, script } = scriptedEmbedder();
    const processor = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid', embedder: model } } as any);
    const step = await stepOf(processor);
    script.query = { embeddings: (values) => values.map(() => new Array(DIM).fill(1)) };
    expect(await search(step, 'zorblax weather')).toEqual(await fallbackNames('zorblax weather'));
    expect(embedderWarnings(warn)).toHaveLength(1);
    expect(embedderWarnings(warn)[0]).toMatch(/degenerate/);
    processor.dispose();
  });

  it(`vectors are capped at ${8192} values: longer ones fall back with a warning naming the cap; the cap itself is accepted`, async () => {
    expect(MAX_DIMENSIONS).toBe(8192);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const sized = (dim: number) => (values: string[]) => values.map((t) => conceptVector(t, dim));
    const { model, script } = scriptedEmbedder();
    script.catalog = { embeddings: sized(100_000) };
    const processor = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid', embedder: model } } as any);
    expect(await search(await stepOf(processor), 'zorblax')).toEqual(await fallbackNames('zorblax'));
    expect(embedderWarnings(warn)).toHaveLength(1);
    expect(embedderWarnings(warn)[0]).toContain('more than the 8192 values');
    processor.dispose();
    const atCap = scriptedEmbedder();
    atCap.script.catalog = { embeddings: sized(8192) };
    atCap.script.query = { embeddings: sized(8192) };
    const capped = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid', embedder: atCap.model } } as any);
    expect((await search(await stepOf(capped), 'zorblax'))[0]).toBe('get_weather');
    expect(embedderWarnings(warn)).toHaveLength(1);
    capped.dispose();
    // A shared-cache value past the cap is no vector (read as a miss), nor is a constant one.
    expect(decodeVector(encodeVector(new Float32Array(8193).fill(0.5).map((x, i) => x + i)))).toBeUndefined();
    expect(decodeVector(encodeVector(new Float32Array(8).fill(0.5)))).toBeUndefined();
    expect(decodeVector(encodeVector(Float32Array.of(1, 0, 2)))).toHaveLength(3);
  });
});

describe('the query cache (item 6c)', () => {
  it('is bounded by bytes for long queries and freed by dispose() (child process, measured heap)', async () => {
    const root = join(__dirname, '..', '..');
    const script = `
      const { createTool } = require('@mastra/core/tools');
      const { MessageList } = require('@mastra/core/agent');
      const { RequestContext } = require('@mastra/core/request-context');
      const { z } = require('zod');
      const { ToolSearchProcessor } = require(${JSON.stringify(join(root, 'index.js'))});
      const { preloadDefs } = require(${JSON.stringify(join(root, '__test__', 'fixtures', 'preload-defs.cjs'))});
      const tools = Object.fromEntries(preloadDefs.map(([id, description]) => [id, createTool({ id, description, inputSchema: z.object({}).passthrough(), execute: async () => ({}) })]));
      // 8,192 values per vector: 80 cached queries hold 2.5 MB of vectors.
      const DIM = 8192;
      const embedder = { specificationVersion: 'v2', provider: 'local', modelId: 'big', maxEmbeddingsPerCall: 100,
        async doEmbed({ values }) { return { embeddings: values.map((t) => Array.from({ length: DIM }, (_, i) => ((t.length * 31 + i * 7 + t.charCodeAt(t.length - 1)) % 13) - 6)) }; } };
      // (after an event-loop turn: the WebAssembly runtime lets go of buffers passed to it on a later turn)
      const measure = async () => { await new Promise((r) => setTimeout(r, 50)); global.gc(); global.gc(); const m = process.memoryUsage(); return { heap: m.heapUsed, buffers: m.arrayBuffers }; };
      (async () => {
        const p = new ToolSearchProcessor({ tools, search: { mode: 'hybrid', embedder } });
        const rc = new RequestContext(); rc.set('mastra__threadId', 't');
        const s = await p.processInputStep({ tools: {}, messageList: new MessageList({ threadId: 't', resourceId: 'r' }), requestContext: rc, messages: [], stepNumber: 0 });
        await s.tools.search_tools.execute({ query: 'warm up' }, {});
        const before = await measure();
        const long = 'w'.repeat(200_000); // 200 KB, one word (cheap for the lexical side)
        for (let i = 0; i < 80; i++) await s.tools.search_tools.execute({ query: long + i }, {});
        const filled = await measure();
        p.dispose();
        const disposed = await measure();
        console.log(JSON.stringify({ heapGrowth: filled.heap - before.heap, buffersHeld: filled.buffers - before.buffers, buffersFreed: filled.buffers - disposed.buffers }));
      })();`;
    const run = await runNode(['--expose-gc', '-e', script], 120_000);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const out = JSON.parse(run.stdout.trim().split('\n').pop()!);
    // 80 keys of 200 KB would be 16 MB of heap; hashed, they are a few KB.
    expect(out.heapGrowth).toBeLessThan(6 * 2 ** 20);
    expect(out.buffersHeld).toBeGreaterThan(2 * 2 ** 20);
    expect(out.buffersFreed).toBeGreaterThan(2 * 2 ** 20);
  }, 130_000);
});

describe('the catalog vector cache is bounded in bytes', () => {
  const savedBounds = { ...embedderModule.CACHE_BOUNDS };
  afterEach(() => Object.assign(embedderModule.CACHE_BOUNDS, savedBounds));

  it('a catalog larger than the bound is still embedded whole and used; the cache stays within the bound', async () => {
    // 8-value vectors are 32 bytes: the bound holds 4 texts, the catalog has ~15.
    embedderModule.CACHE_BOUNDS.bytes = 4 * DIM * 4;
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { model, calls } = scriptedEmbedder();
    const processor = new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid', embedder: model } } as any);
    const step = await stepOf(processor);
    // 'zorblax' is no word of any tool: only the embedder's vectors (weather axis) find get_weather.
    expect((await search(step, 'zorblax'))[0]).toBe('get_weather');
    expect(embedderWarnings(warn)).toEqual([]);
    expect(embedderModule.cachedBytesOf(model)).toBeLessThanOrEqual(4 * DIM * 4);
    const catalogTexts = calls.filter((c) => c.length > 1).flat().length;
    expect(catalogTexts).toBeGreaterThan(4);
    // A new tool set re-embeds what the bound dropped, and search still uses the embedder.
    const next = await stepOf(new ToolSearchProcessor({ tools: { ...tools(), ...extraTool('invoices') }, search: { mode: 'hybrid', embedder: model } } as any));
    expect((await search(next, 'zorblax'))[0]).toBe('get_weather');
    expect(embedderModule.cachedBytesOf(model)).toBeLessThanOrEqual(4 * DIM * 4);
    processor.dispose();
  });

  it('under the default bound a catalog embedded once is not embedded again by another processor', async () => {
    const { model, calls } = scriptedEmbedder();
    await stepOf(new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid', embedder: model } } as any));
    const first = calls.length;
    const step = await stepOf(new ToolSearchProcessor({ tools: tools(), search: { mode: 'hybrid', embedder: model } } as any));
    expect((await search(step, 'zorblax'))[0]).toBe('get_weather');
    expect(calls.filter((c) => c.length > 1).length).toBe(calls.slice(0, first).filter((c) => c.length > 1).length);
  });
});
