// Retrieval quality on the MetaTool (ToolE) set through the public processor API:
// @mastra/core 1.59.0's ToolSearchProcessor (reference) and ours in 'compatible' and
// 'enhanced' search mode, all in one run. `npm run bench:quality` (after `npm run build`).
//
// Query lines are split by their 0-based line index i in data/metatool/queries.jsonl:
// even i = tuning half, odd i = report half. topK 10, minScore 0. recall@k =
// |relevant ∩ top-k| / |relevant|; MRR@10 and nDCG@10 use binary gains.
// Exits non-zero when compatible mode differs from the reference on any query.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { createTool } from '@mastra/core/tools';
import { MessageList } from '@mastra/core/agent';
import { RequestContext } from '@mastra/core/request-context';
import { ToolSearchProcessor as Reference } from '@mastra/core/processors';
import { ToolSearchProcessor as Native } from '../index.js';

const here = dirname(fileURLToPath(import.meta.url));
const dataDir = join(here, '..', 'data', 'metatool');
const readJsonl = (file) =>
  readFileSync(join(dataDir, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));

const TOP_K = 10;

async function searcher(P, search) {
  const catalog = readJsonl('tools.jsonl');
  const tools = {};
  for (const { id, description } of catalog) {
    tools[id] = createTool({ id, description, execute: async () => ({ id }) });
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

function row(label, m) {
  const n = Math.max(m.n, 1);
  const f = (x) => (x / n).toFixed(4).padStart(9);
  return `${label.padEnd(30)} ${String(m.n).padStart(6)} ${f(m.r1)} ${f(m.r5)} ${f(m.r10)} ${f(m.mrr)} ${f(m.ndcg)}`;
}

async function main() {
  const queries = readJsonl('queries.jsonl');
  const configs = [
    ['reference (@mastra/core)', Reference, { topK: TOP_K, minScore: 0 }],
    ['ours compatible', Native, { topK: TOP_K, minScore: 0, mode: 'compatible' }],
    ['ours enhanced', Native, { topK: TOP_K, minScore: 0, mode: 'enhanced' }],
  ];
  const searchers = [];
  for (const [label, P, search] of configs) {
    try {
      searchers.push({ label, s: await searcher(P, search), metrics: [emptyMetrics(), emptyMetrics()], ms: 0 });
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
      const t0 = performance.now();
      const names = await x.s.names(query);
      x.ms += performance.now() - t0;
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

  const tools = readJsonl('tools.jsonl').length;
  console.log(`MetaTool: ${tools} tools, ${queries.length} queries; search_tools topK=${TOP_K} minScore=0`);
  console.log('lines split by 0-based index i: report = odd i, tune = even i');
  console.log(`${'config / lines'.padEnd(30)} ${'n'.padStart(6)} ${'recall@1'.padStart(9)} ${'recall@5'.padStart(9)} ${'recall@10'.padStart(9)} ${'MRR@10'.padStart(9)} ${'nDCG@10'.padStart(9)}`);
  for (const half of [1, 0]) {
    for (const x of searchers) console.log(row(`${x.label} ${half ? 'odd' : 'even'}`, x.metrics[half]));
  }
  console.log('');
  for (const x of searchers) {
    console.log(`${x.label.padEnd(30)} ${((x.ms * 1000) / queries.length).toFixed(1).padStart(8)} µs/query (through search_tools.execute)`);
    x.s.dispose();
  }
  if (reference && compatible) {
    console.log(`\ncompatible vs reference: ${mismatches === 0 ? 'identical results (names, descriptions, scores) for every query' : `${mismatches} queries differ`}`);
    if (mismatches > 0) process.exitCode = 1;
  }
}

await main();
