// search.embeddingCache (ours, issue 27): vectors of search.embedder shared between processes
// through a real redis-server, so a catalog is embedded once between them. Two embedder objects
// with one identity stand for two processes (the in-process cache is per embedder object); one
// test runs the second processor in a real child process. Faults (a cache that throws, hangs or
// answers garbage, a closed client) only mean embedding without it, with one warning per outage.
import { MessageList } from '@mastra/core/agent';
import { RequestContext } from '@mastra/core/request-context';
import { createTool } from '@mastra/core/tools';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createClient } from 'redis';
import IORedis from 'ioredis';
import { join } from 'node:path';

import { SkillSearchProcessor, ToolSearchProcessor, redisEmbeddingCache } from '../../index.js';
import { preloadTools } from '../support/preload';
import { startRedisServer, type RedisServer } from '../support/redis-server';
import { runNode } from '../support/run-node';
import { call, step, tempSkillsWorkspace, type TempWorkspace } from '../support/skill-search';

const { decodeVector, encodeVector, sharedKeyOf } = require('../../js/embedder.js');

const AXES: Record<string, number> = { weather: 0, forecast: 0, zorblax: 0, email: 1, message: 1, quuxmail: 1, calendar: 2, meeting: 2, stock: 3, price: 3 };
const DIM = 8;
const embedText = (text: string, dim = DIM) => {
  const v = new Array(dim).fill(0);
  v[dim - 1] = 0.05;
  for (const word of text.toLowerCase().split(/[^a-z]+/)) if (word in AXES) v[AXES[word] % (dim - 1)] += 1;
  return v;
};
/** A deterministic EmbeddingModel; every doEmbed call is recorded. */
function conceptEmbedder(modelId = 'concepts', dim = DIM) {
  const calls: string[][] = [];
  const model = {
    specificationVersion: 'v2',
    provider: 'local',
    modelId,
    maxEmbeddingsPerCall: 100,
    supportsParallelCalls: false,
    async doEmbed({ values }: { values: string[] }) {
      calls.push(values);
      return { embeddings: values.map((t) => embedText(t, dim)) };
    },
  };
  return { model, calls };
}
const catalogCalls = (calls: string[][]) => calls.filter((c) => c.length > 1);
/** A fresh process's calls with every catalog vector cached: one text (the model's vector length), then the query. */
const probeThen = (query: string) => [[expect.any(String)], [query]];

async function topNames(processor: any, query: string) {
  const requestContext = new RequestContext<any>();
  requestContext.set('mastra__threadId', 'emb');
  const s = await processor.processInputStep({ tools: {}, messageList: new MessageList({ threadId: 'emb', resourceId: 'r' }), requestContext, messages: [], stepNumber: 0 });
  return (await s.tools.search_tools.execute({ query }, {})).results.map((r: any) => r.name);
}
const processorWith = (embedder: any, embeddingCache?: any) =>
  new ToolSearchProcessor({ tools: preloadTools(createTool, z), search: { mode: 'hybrid', embedder, ...(embeddingCache ? { embeddingCache } : {}) } } as any);
/** Lets a write the catalog did not wait for reach the cache. */
const settle = () => new Promise((r) => setTimeout(r, 50));

let server: RedisServer;
let client: ReturnType<typeof createClient>;
let ioClient: IORedis;
let fx: TempWorkspace;

beforeAll(async () => {
  server = await startRedisServer();
  client = createClient({ url: server.url });
  client.on('error', () => {});
  await client.connect();
  ioClient = new IORedis(server.port, '127.0.0.1', { lazyConnect: true });
  ioClient.on('error', () => {});
  await ioClient.connect();
  fx = tempSkillsWorkspace();
});
afterAll(async () => {
  await client?.close().catch(() => {});
  ioClient?.disconnect();
  await server?.close();
  fx?.cleanup();
});
afterEach(async () => {
  vi.restoreAllMocks();
  await client.flushAll();
});

describe('search.embeddingCache with Redis', () => {
  it('a second process with the same model embeds one catalog text (to learn the length), and ranks the same (node-redis and ioredis)', async () => {
    for (const redis of [client, ioClient]) {
      await client.flushAll();
      const cache = redisEmbeddingCache(redis as any);
      const first = conceptEmbedder();
      const a = processorWith(first.model, cache);
      const fromA = await topNames(a, 'zorblax');
      expect(fromA[0]).toBe('get_weather');
      expect(catalogCalls(first.calls)).toHaveLength(1);
      await settle();
      const second = conceptEmbedder();
      const b = processorWith(second.model, cache);
      expect(await topNames(b, 'zorblax')).toEqual(fromA);
      // One text for the model's vector length, and the query: the other tool vectors came from Redis.
      expect(second.calls).toEqual(probeThen('zorblax'));
      a.dispose();
      b.dispose();
    }
  });

  it('keys hash the model identity and the text (no text in Redis); values are the vectors; 30-day TTL', async () => {
    const { model } = conceptEmbedder();
    const p = processorWith(model, redisEmbeddingCache(client));
    await topNames(p, 'zorblax');
    await settle();
    const keys = (await client.keys('*')).sort();
    expect(keys).toHaveLength(5);
    for (const key of keys) {
      expect(key).toMatch(/^mastra:embedding:[A-Za-z0-9_-]{43}$/);
      const vector = decodeVector(await client.get(key));
      expect(vector).toHaveLength(DIM);
      const ttl = await client.pTTL(key);
      expect(ttl).toBeGreaterThan(29 * 24 * 3_600_000);
      expect(ttl).toBeLessThanOrEqual(30 * 24 * 3_600_000);
    }
    // The key of a text under this model is what the package computes; another model id, another key.
    const sample = 'Get the weather forecast';
    expect(sharedKeyOf(model, sample)).not.toBe(sharedKeyOf({ ...model, modelId: 'other' }, sample));
    expect(Array.from(decodeVector(encodeVector(Float32Array.of(1.5, -2, 0))))).toEqual([1.5, -2, 0]);
    for (const key of keys) expect(await client.get(key)).not.toMatch(/weather|email/i);
    p.dispose();
  });

  it('another model id shares nothing; keyPrefix and ttlMs are honoured', async () => {
    const cache = redisEmbeddingCache(client, { keyPrefix: 'app1:vec:', ttlMs: 60_000 });
    const a = conceptEmbedder('concepts');
    await topNames(processorWith(a.model, cache), 'zorblax');
    await settle();
    // After a server restart the script cache is empty: the write sends the script again.
    await client.scriptFlush();
    const b = conceptEmbedder('concepts-v2');
    await topNames(processorWith(b.model, cache), 'zorblax');
    expect(catalogCalls(b.calls)).toHaveLength(1);
    await settle();
    const keys = await client.keys('*');
    expect(keys).toHaveLength(10);
    expect(keys.every((k) => String(k).startsWith('app1:vec:'))).toBe(true);
    expect(await client.pTTL(keys[0])).toBeLessThanOrEqual(60_000);
  });

  it('a catalog past one round trip (1,000 keys) is written and read whole', async () => {
    const many = Object.fromEntries(
      Array.from({ length: 1200 }, (_, i) => [`tool_${i}`, createTool({ id: `tool_${i}`, description: `Tool number ${i} for ${['weather', 'email', 'calendar', 'stock'][i % 4]} work`, inputSchema: z.object({}), execute: async () => ({}) })]),
    );
    const make = (embedder: any) => new ToolSearchProcessor({ tools: many, search: { mode: 'hybrid', embedder, embeddingCache: redisEmbeddingCache(client) } } as any);
    const a = conceptEmbedder();
    const fromA = await topNames(make(a.model), 'zorblax');
    await settle();
    expect(await client.dbSize()).toBe(1200);
    const b = conceptEmbedder();
    expect(await topNames(make(b.model), 'zorblax')).toEqual(fromA);
    expect(b.calls).toEqual(probeThen('zorblax'));
  });

  it('large vectors are written in several round trips of at most 1 MB and read back whole', async () => {
    const cache = redisEmbeddingCache(client);
    const sends: number[] = [];
    const original = client.sendCommand.bind(client);
    const spy = vi.spyOn(client, 'sendCommand').mockImplementation(((args: string[], options: any) => {
      sends.push(args.reduce((n, a) => n + a.length, 0));
      return original(args, options);
    }) as any);
    const entries = Array.from({ length: 300 }, (_, i) => [`k${i}`, encodeVector(new Float32Array(1536).map((_, j) => i / 7 + j))] as [string, string]);
    await cache.set(entries);
    expect(sends.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...sends)).toBeLessThan(1.1 * 2 ** 20);
    spy.mockRestore();
    const back = await cache.get(entries.map(([k]) => k));
    expect(back).toEqual(entries.map(([, v]) => v));
    expect(Array.from(decodeVector(back[299]).subarray(0, 2))).toEqual([Math.fround(299 / 7), Math.fround(299 / 7 + 1)]);
  });

  it('values that are no vector of this length are embedded again and rewritten', async () => {
    const cache = redisEmbeddingCache(client);
    const first = conceptEmbedder();
    await topNames(processorWith(first.model, cache), 'zorblax');
    await settle();
    const keys = (await client.keys('*')).sort();
    await client.set(keys[0], 'not base64 at all!');
    await client.set(keys[1], encodeVector(Float32Array.of(1, NaN, 0, 0, 0, 0, 0, 0)));
    await client.set(keys[2], Buffer.from([1, 2, 3]).toString('base64'));
    const second = conceptEmbedder();
    expect((await topNames(processorWith(second.model, cache), 'zorblax'))[0]).toBe('get_weather');
    // The three bad values, and at most one more text (the one embedded for the length).
    const embedded = second.calls.slice(0, -1).flat();
    expect(embedded.length).toBeGreaterThanOrEqual(3);
    expect(embedded.length).toBeLessThanOrEqual(4);
    await settle();
    for (const key of keys) expect(decodeVector(await client.get(key))).toHaveLength(DIM);
  });

  it('stale vectors of another size under the same key (output size changed, prefix not): embedded again and rewritten', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const cache = redisEmbeddingCache(client);
    const small = conceptEmbedder('concepts', 4);
    await topNames(processorWith(small.model, cache), 'zorblax');
    await settle();
    await client.del((await client.keys('*')).sort()[0]);
    // Same identity, now 8 values per vector: the model's own answers tell the length.
    const big = conceptEmbedder('concepts', DIM);
    expect((await topNames(processorWith(big.model, cache), 'zorblax'))[0]).toBe('get_weather');
    expect(big.calls.slice(0, -1).flat()).toHaveLength(5);
    await settle();
    const keys = await client.keys('*');
    expect(keys).toHaveLength(5);
    for (const key of keys) expect(decodeVector(await client.get(key))).toHaveLength(DIM);
    expect(warn.mock.calls.map((c) => String(c[0])).filter((m) => m.includes('search.embedder failed'))).toEqual([]);
    // A third process now reads them all.
    const third = conceptEmbedder('concepts', DIM);
    expect((await topNames(processorWith(third.model, cache), 'zorblax'))[0]).toBe('get_weather');
    expect(third.calls).toEqual(probeThen('zorblax'));
  });

  it("a first readable value of another length does not fix the length: the model's vectors are used, the bad entry rewritten", async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const cache = redisEmbeddingCache(client);
    // The order in which a processor reads the catalog's keys.
    let order: string[] = [];
    const recording = { get: (keys: string[], opts: any) => ((order = keys), cache.get(keys, opts)), set: (entries: [string, string][], opts: any) => cache.set(entries, opts) };
    await topNames(processorWith(conceptEmbedder().model, recording), 'zorblax');
    await settle();
    // The first text a fresh process reads is 4 values long, the rest right. (A fresh process
    // embeds one text while it reads the others, so the first two texts are made bad.)
    const all = (await client.keys('*')).map((k) => k.slice('mastra:embedding:'.length));
    const bad = [order[0], all.find((k) => !order.includes(String(k)))].filter((k) => k !== undefined) as string[];
    for (const key of bad) await client.set(`mastra:embedding:${key}`, encodeVector(Float32Array.of(1, 0, 0.5, 0)));
    for (let round = 0; round < 2; round++) {
      const fresh = conceptEmbedder();
      expect((await topNames(processorWith(fresh.model, cache), 'zorblax'))[0]).toBe('get_weather');
      await settle();
    }
    for (const key of bad) expect(decodeVector(await client.get(`mastra:embedding:${key}`))).toHaveLength(DIM);
    expect(warn.mock.calls.map((c) => String(c[0])).filter((m) => m.includes('search.embedder failed'))).toEqual([]);
  });

  it('a closed client: embedding goes on without the cache, one warning per outage', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const dead = createClient({ url: server.url, disableOfflineQueue: true });
    dead.on('error', () => {});
    await dead.connect();
    await dead.close();
    const { model, calls } = conceptEmbedder();
    const p = processorWith(model, redisEmbeddingCache(dead));
    expect((await topNames(p, 'zorblax'))[0]).toBe('get_weather');
    expect(catalogCalls(calls)).toHaveLength(1);
    await settle();
    const warnings = warn.mock.calls.map((c) => String(c[0])).filter((m) => m.includes('search.embeddingCache failed'));
    // The read and the write both failed within one outage: one warning.
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^ToolSearchProcessor: search\.embeddingCache failed \(.+\); embedding without it until it answers again\.$/);
  });

  it('a second process really reads the vectors (child process, same Redis)', async () => {
    const cache = redisEmbeddingCache(client);
    const { model } = conceptEmbedder();
    const fromHere = await topNames(processorWith(model, cache), 'zorblax');
    await settle();
    const root = join(__dirname, '..', '..');
    const script = `
      const { createClient } = require('redis');
      const { createTool } = require('@mastra/core/tools');
      const { MessageList } = require('@mastra/core/agent');
      const { RequestContext } = require('@mastra/core/request-context');
      const { z } = require('zod');
      const { ToolSearchProcessor, redisEmbeddingCache } = require(${JSON.stringify(join(root, 'index.js'))});
      const { preloadDefs } = require(${JSON.stringify(join(root, '__test__', 'fixtures', 'preload-defs.cjs'))});
      const preloadTools = (createTool, z) => Object.fromEntries(preloadDefs.map(([id, description]) => [id, createTool({ id, description, inputSchema: z.object({}).passthrough(), execute: async () => ({ ok: id }) })]));
      (async () => {
        const client = createClient({ url: ${JSON.stringify(server.url)} });
        client.on('error', () => {});
        await client.connect();
        const AXES = ${JSON.stringify(AXES)};
        const calls = [];
        const model = { specificationVersion: 'v2', provider: 'local', modelId: 'concepts', maxEmbeddingsPerCall: 100,
          async doEmbed({ values }) { calls.push(values.length); return { embeddings: values.map((t) => { const v = new Array(${DIM}).fill(0); v[${DIM - 1}] = 0.05;
            for (const w of t.toLowerCase().split(/[^a-z]+/)) if (w in AXES) v[AXES[w] % ${DIM - 1}] += 1; return v; }) }; } };
        const p = new ToolSearchProcessor({ tools: preloadTools(createTool, z), search: { mode: 'hybrid', embedder: model, embeddingCache: redisEmbeddingCache(client) } });
        const rc = new RequestContext(); rc.set('mastra__threadId', 'emb');
        const s = await p.processInputStep({ tools: {}, messageList: new MessageList({ threadId: 'emb', resourceId: 'r' }), requestContext: rc, messages: [], stepNumber: 0 });
        const { results } = await s.tools.search_tools.execute({ query: 'zorblax' }, {});
        console.log(JSON.stringify({ calls, names: results.map((r) => r.name) }));
        p.dispose();
        await client.close();
      })();`;
    const r = await runNode(['-e', script], 60_000);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout.trim())).toEqual({ calls: [1, 1], names: fromHere });
  }, 70_000);
});

describe('search.embeddingCache contract and faults (custom caches)', () => {
  it('a cache that throws, hangs or answers the wrong count is skipped with one warning; it is used again once it answers', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    let mode: 'throw' | 'count' | 'ok' = 'throw';
    const stored = new Map<string, string>();
    const cache = {
      async get(keys: string[]) {
        if (mode === 'throw') throw new Error('cache down');
        if (mode === 'count') return [null];
        return keys.map((k) => stored.get(k) ?? null);
      },
      async set(entries: [string, string][]) {
        if (mode === 'throw') throw new Error('cache down');
        for (const [k, v] of entries) stored.set(k, v);
      },
    };
    const first = conceptEmbedder();
    expect((await topNames(processorWith(first.model, cache), 'zorblax'))[0]).toBe('get_weather');
    mode = 'count';
    await topNames(processorWith(conceptEmbedder().model, cache), 'zorblax');
    await settle();
    const failures = () => warn.mock.calls.map((c) => String(c[0])).filter((m) => m.includes('search.embeddingCache failed'));
    expect(failures()).toHaveLength(2); // one per processor's outage
    expect(failures()[0]).toContain('cache down');
    // (four keys: a fresh process embeds the fifth text meanwhile, for the model's vector length)
    expect(failures()[1]).toContain('get() returned 1 values for 4 keys');
    mode = 'ok';
    const filler = conceptEmbedder();
    await topNames(processorWith(filler.model, cache), 'zorblax');
    await settle();
    expect(stored.size).toBe(5);
    const reader = conceptEmbedder();
    await topNames(processorWith(reader.model, cache), 'zorblax');
    expect(reader.calls).toEqual(probeThen('zorblax'));
  });

  it('a cache that never answers costs at most its bound; the catalog is embedded meanwhile', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const cache = { get: () => new Promise(() => {}), set: () => new Promise(() => {}) };
    const { model, calls } = conceptEmbedder();
    const started = performance.now();
    expect((await topNames(processorWith(model, cache), 'zorblax'))[0]).toBe('get_weather');
    expect(performance.now() - started).toBeLessThan(8_000);
    expect(catalogCalls(calls)).toHaveLength(1);
    expect(warn.mock.calls.some((c) => String(c[0]).includes('search.embeddingCache failed (get() took longer than 2004 ms)'))).toBe(true);
  }, 20_000);

  it('skills share vectors through the cache too', async () => {
    const cache = redisEmbeddingCache(client);
    const skills = (embedder: any) => new SkillSearchProcessor({ workspace: fx.make(), search: { mode: 'hybrid', embedder, embeddingCache: cache } } as any);
    const run = async (p: any) => (await call((await step(p, { threadId: 'emb' })).tools.search_skills, { query: 'weather' })).results.map((r: any) => r.name);
    const a = conceptEmbedder();
    const fromA = await run(skills(a.model));
    await settle();
    expect(catalogCalls(a.calls).flat().length).toBeGreaterThan(10);
    const b = conceptEmbedder();
    expect(await run(skills(b.model))).toEqual(fromA);
    expect(b.calls).toEqual(probeThen('weather'));
  });

  it('bad options are TypeErrors naming the option', () => {
    const { model } = conceptEmbedder();
    const make = (search: any) => () => new ToolSearchProcessor({ tools: preloadTools(createTool, z), search } as any);
    expect(make({ mode: 'hybrid', embeddingCache: redisEmbeddingCache(client) })).toThrow(/options\.search\.embeddingCache is used with options\.search\.embedder/);
    expect(make({ mode: 'hybrid', embedder: model, embeddingCache: {} })).toThrow(/options\.search\.embeddingCache must be a shared vector cache such as redisEmbeddingCache\(client\)/);
    expect(make({ mode: 'hybrid', embedder: model, embeddingCache: client })).toThrow(/options\.search\.embeddingCache must be redisEmbeddingCache\(client\), not the Redis client itself/);
    expect(make({ mode: 'hybrid', embedder: model, embeddingCache: ioClient })).toThrow(/not the Redis client itself/);
    expect(() => redisEmbeddingCache({} as any)).toThrow(/redisEmbeddingCache: client must be a connected standalone node-redis v5 client/);
    expect(() => redisEmbeddingCache(client, { keyPrefix: 'nosep' })).toThrow(/options\.keyPrefix must be a non-empty string ending with a separator/);
    expect(() => redisEmbeddingCache(client, { timeoutMs: 0 })).toThrow(/options\.timeoutMs must be a positive finite number/);
    expect(() => redisEmbeddingCache(client, { ttlMs: -1 })).toThrow(/options\.ttlMs must be a non-negative finite number/);
    // an unknown key is warned about once, with the key it was probably meant to be
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      redisEmbeddingCache(client, { keyprefix: 'a:' } as any);
      redisEmbeddingCache(client, { keyprefix: 'a:' } as any);
      expect(warn.mock.calls.map((c) => String(c[0]))).toEqual(['redisEmbeddingCache: unknown option `keyprefix` is ignored. Did you mean `keyPrefix`?']);
    } finally {
      warn.mockRestore();
    }
    expect(() => new SkillSearchProcessor({ workspace: fx.make(), search: { mode: 'hybrid', embeddingCache: {} } } as any)).toThrow(
      /SkillSearchProcessor: options\.search\.embeddingCache is used with options\.search\.embedder/,
    );
  });
});
