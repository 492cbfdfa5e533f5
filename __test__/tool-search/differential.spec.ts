// Differential tests: the same inputs through @mastra/core 1.59.0 and through ours must give
// the same outputs. Catalog and queries: the MetaTool benchmark (data/metatool).
import { describe, expect, it } from 'vitest';
import { Native, Reference, plain, requestContext, step, tool, toolResultMessage } from '../support/tool-search';
// Deterministic PRNG shared with the benchmarks, so every run checks the same sample.
import { rng } from '../../bench/util.mjs';
import { METATOOL_QUERIES, METATOOL_TOOLS } from '../support/metatool';

const catalog = METATOOL_TOOLS;
const allQueries = METATOOL_QUERIES;

function sample<T>(items: T[], n: number, seed: number): T[] {
  const r = rng(seed);
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(items[Math.floor(r() * items.length)]);
  return out;
}

const tools = Object.fromEntries(catalog.map((t) => [t.id, tool(t.id, t.description)]));
const queries = [
  ...sample(allQueries, 1200, 42),
  // edge-shaped queries: ids, id fragments, duplicates, punctuation, case, whitespace
  ...catalog.slice(0, 60).map((t) => t.id),
  ...catalog.slice(60, 90).map((t) => t.id.toUpperCase().replace(/_/g, ' ')),
  'weather weather forecast',
  'the a an of',
  '!!! ??? ...',
  '',
  '   ',
  'ticket(s) [booking]; {hotel}: "flights"',
  'café 51.5074° N',
];

async function searchBoth(options: Record<string, unknown>, qs: string[]) {
  const ref = await step(new Reference({ tools, ...options }));
  const ours = await step(new Native({ tools, ...options }));
  const mismatches: unknown[] = [];
  let found = 0;
  for (const q of qs) {
    const a = await ref.search(q);
    const b = await ours.search(q);
    if (JSON.stringify(a) !== JSON.stringify(b)) mismatches.push({ q, reference: a, native: b });
    if (b.results.length > 0) found++;
  }
  return { mismatches, found };
}

describe('differential: search_tools over the MetaTool catalog', () => {
  it(`has at least 1,000 queries`, () => {
    expect(queries.length).toBeGreaterThanOrEqual(1000);
  });

  for (const search of [{ topK: 5 }, { topK: 10 }, { topK: 10, minScore: 2.5 }, { topK: 3, minScore: 0.75 }, { topK: 0 }, { topK: 1 }]) {
    it(`identical results, scores and messages with ${JSON.stringify(search)}`, async () => {
      const { mismatches, found } = await searchBoth({ search }, queries);
      expect(mismatches).toEqual([]);
      // guard against a vacuous comparison: most queries must return something
      if (search.topK > 0) expect(found).toBeGreaterThan(queries.length / 2);
      else expect(found).toBe(0);
    });
  }

  it('identical results, filter calls and order with a filter', async () => {
    const log: Record<string, string[]> = { reference: [], native: [] };
    const make = (label: string) => ({
      search: { topK: 5 },
      filter: ({ toolName, phase }: any) => {
        log[label].push(`${phase}:${toolName}`);
        return toolName.length % 3 !== 0;
      },
    });
    const qs = queries.slice(0, 400);
    const ref = await step(new Reference({ tools, ...make('reference') }));
    const ours = await step(new Native({ tools, ...make('native') }));
    for (const q of qs) expect(await ours.search(q)).toEqual(await ref.search(q));
    expect(log.native).toEqual(log.reference);
    expect(log.native.length).toBeGreaterThan(400);
  });

  it('identical results in autoLoad mode, including the already-loaded suffix', async () => {
    const qs = queries.slice(0, 150);
    const ref = new Reference({ tools, search: { autoLoad: true, topK: 3 } });
    const ours = new Native({ tools, search: { autoLoad: true, topK: 3 } });
    const a = await step(ref, { threadId: 'auto' });
    const b = await step(ours, { threadId: 'auto' });
    for (const q of qs) expect(await b.search(q)).toEqual(await a.search(q));
    expect((await step(ours, { threadId: 'auto' })).keys).toEqual((await step(ref, { threadId: 'auto' })).keys);
  });
});

describe('differential: load_tool and the tools offered next', () => {
  const ids = catalog.map((t) => t.id);
  const requests: any[] = [
    { toolName: ids[0] },
    { toolName: ids[0] },
    { toolName: 'weath' },
    { toolName: 'zzz_nothing' },
    { toolName: 'Tool' },
    { toolName: 'search' },
    { toolNames: [ids[1], ids[2], 'nope', ids[1]] },
    { toolNames: [ids[3]] },
    { toolNames: [] },
    { toolNames: [], toolName: ids[0] },
    { toolName: ids[4], toolNames: ['missing', ids[4]] },
    {},
    { toolNames: ids.slice(10, 30) },
  ];

  it('identical responses (including undefined-valued keys) and next-step keys', async () => {
    for (const storage of ['in-memory', 'context'] as const) {
      const ref = new Reference({ tools, storage });
      const ours = new Native({ tools, storage });
      const a = await step(ref, { threadId: 'load' });
      const b = await step(ours, { threadId: 'load' });
      for (const req of requests) {
        const ra = await a.load(req);
        const rb = await b.load(req);
        expect(rb).toEqual(ra);
        expect(Object.keys(rb)).toEqual(Object.keys(ra));
      }
      const na = await step(ref, { threadId: 'load' });
      const nb = await step(ours, { threadId: 'load' });
      expect(nb.keys).toEqual(na.keys);
      for (const k of nb.keys.slice(2)) expect(nb.result.tools[k]).toBe(na.result.tools[k]);
    }
  });

  it('random load sequences across threads give identical responses and keys', async () => {
    const r = rng(7);
    const ref = new Reference({ tools });
    const ours = new Native({ tools });
    for (let i = 0; i < 300; i++) {
      const threadId = `t${Math.floor(r() * 5)}`;
      const pick = () => (r() < 0.15 ? ids[Math.floor(r() * ids.length)].slice(0, 4) : ids[Math.floor(r() * ids.length)]);
      const req = r() < 0.5 ? { toolName: pick() } : { toolNames: [pick(), pick()] };
      const a = await step(ref, { threadId });
      const b = await step(ours, { threadId });
      expect(b.keys).toEqual(a.keys);
      expect(plain(await b.load(req))).toEqual(plain(await a.load(req)));
    }
    expect(ours.getStateStats().threadCount).toBe(ref.getStateStats().threadCount);
  });

  it('identical system messages in both modes', async () => {
    for (const autoLoad of [false, true]) {
      const got: string[][] = [[], []];
      for (const [i, P] of [Reference, Native].entries()) {
        const p = new P({ tools, search: { autoLoad } });
        await p.processInputStep({ tools: {}, messageList: { addSystem: (m: string) => got[i].push(m) }, requestContext: requestContext() } as any);
      }
      expect(got[1]).toEqual(got[0]);
    }
  });

  it('identical meta-tool descriptions and JSON schemas', async () => {
    for (const autoLoad of [false, true]) {
      const a = await step(new Reference({ tools, search: { autoLoad } }));
      const b = await step(new Native({ tools, search: { autoLoad } }));
      for (const k of a.keys) {
        expect(b.result.tools[k].id).toBe(a.result.tools[k].id);
        expect(b.result.tools[k].description).toBe(a.result.tools[k].description);
        const schemaOf = (t: any) => JSON.stringify(t.inputSchema['~standard'].jsonSchema.input({ target: 'draft-2020-12' }));
        expect(schemaOf(b.result.tools[k])).toContain('"type":"object"');
        expect(schemaOf(b.result.tools[k])).toBe(schemaOf(a.result.tools[k]));
      }
    }
  });
});

describe('differential: includeResolvedTools', () => {
  it('identical search, load and keys with a large resolved set that changes between requests', async () => {
    const half = catalog.slice(0, 100);
    const staticTools = Object.fromEntries(half.map((t) => [t.id, tool(t.id, t.description)]));
    const ref = new Reference({ tools: staticTools, includeResolvedTools: true });
    const ours = new Native({ tools: staticTools, includeResolvedTools: true });
    const r = rng(11);
    for (let req = 0; req < 6; req++) {
      // each request resolves its own instances of a random slice (some overriding static keys)
      const start = Math.floor(r() * 150);
      const resolved: Record<string, unknown> = {};
      for (const t of catalog.slice(start, start + 49)) resolved[t.id] = tool(t.id, `${t.description} (request ${req})`);
      resolved['client_only'] = { description: 'id-less client tool for invoices' };
      const a = await step(ref, { threadId: 'r', tools: resolved });
      const b = await step(ours, { threadId: 'r', tools: resolved });
      expect(b.keys).toEqual(a.keys);
      for (const k of b.keys.slice(2)) expect(b.result.tools[k]).toBe(a.result.tools[k]);
      for (const q of sample(allQueries, 40, req)) expect(await b.search(q)).toEqual(await a.search(q));
      const toLoad = { toolNames: [catalog[start].id, catalog[(start + 120) % 199].id, 'client_only'] };
      expect(plain(await b.load(toLoad))).toEqual(plain(await a.load(toLoad)));
      expect(plain(await b.load({ toolName: catalog[start].id.slice(0, 3) }))).toEqual(plain(await a.load({ toolName: catalog[start].id.slice(0, 3) })));
    }
  });
});

describe('differential: context storage', () => {
  it('identical keys for message-owned multi loads as messages come and go', async () => {
    const ids = catalog.map((t) => t.id);
    const r = rng(3);
    const ref = new Reference({ tools, storage: 'context' });
    const ours = new Native({ tools, storage: 'context' });
    for (let i = 0; i < 100; i++) {
      const messages = Array.from({ length: Math.floor(r() * 6) }, () =>
        toolResultMessage('load_tool', { success: true, loaded: [ids[Math.floor(r() * ids.length)], ids[Math.floor(r() * ids.length)]] }, r() < 0.8 ? 'result' : 'call'),
      );
      const threadId = r() < 0.5 ? 'ctx' : undefined;
      const a = await step(ref, { threadId, messages });
      const b = await step(ours, { threadId, messages });
      expect(b.keys).toEqual(a.keys);
      if (r() < 0.3) {
        const req = { toolNames: [ids[Math.floor(r() * ids.length)]] };
        expect(plain(await b.load(req))).toEqual(plain(await a.load(req)));
      }
    }
  });
});
