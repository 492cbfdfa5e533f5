// Groundwork for preloading (issue 26): how far can the top search hit be trusted? For each
// request of a development half, search as search_tools does (topK 5) and record the top hit's
// score and its margin over the second; then, per threshold, the share of requests whose top hit
// would be preloaded (coverage), how often it is relevant (precision of one preload), and how often
// a relevant tool is among the top 3 (the task then needs no search: the oracle calls it at once). Development halves only
// (MetaTool even lines, the multilingual dev split): thresholds are chosen here, reported on the
// test halves elsewhere.
//
//   node bench/preload-calibration.mjs [--mode hybrid|enhanced] [--set metatool|multilingual]
import { MessageList } from '@mastra/core/agent';
import { RequestContext } from '@mastra/core/request-context';
import { createTool } from '@mastra/core/tools';
import { ToolSearchProcessor } from '../index.js';
import { hybridModelOption, readJsonl } from './util.mjs';

const option = (name, fallback) => (process.argv.includes(`--${name}`) ? process.argv[process.argv.indexOf(`--${name}`) + 1] : fallback);
const mode = option('mode', 'hybrid');
const which = option('set', 'all');
const modelOption = () => (mode === 'hybrid' ? hybridModelOption() ?? {} : {});

async function observe(catalog, requests) {
  const tools = Object.fromEntries(catalog.map(({ id, description }) => [id, createTool({ id, description, execute: async () => ({}) })]));
  const processor = new ToolSearchProcessor({ tools, search: { topK: 5, mode, ...modelOption() } });
  const step = await processor.processInputStep({ tools: {}, messageList: new MessageList({ threadId: 't', resourceId: 'r' }), requestContext: new RequestContext(), messages: [], stepNumber: 0 });
  const out = [];
  for (const { query, relevant } of requests) {
    const { results } = await step.tools.search_tools.execute({ query }, {});
    if (!results || results.length === 0) {
      out.push({ top: 0, margin: 0, right: false, right3: false, hits: [] });
      continue;
    }
    const top = results[0].score;
    const second = results[1]?.score ?? 0;
    out.push({
      top,
      margin: top - second,
      right: relevant.includes(results[0].name),
      right3: results.slice(0, 3).some((r) => relevant.includes(r.name)),
      hits: results.slice(0, 3).map((r) => ({ score: r.score, relevant: relevant.includes(r.name) })),
    });
  }
  processor.dispose();
  return out;
}

function table(name, rows, key, thresholds) {
  console.log(`\n#### ${name}: preload the top hit when its ${key} ≥ t (${rows.length} requests, top hit right for ${((100 * rows.filter((r) => r.right).length) / rows.length).toFixed(1)}%)\n`);
  console.log(`| t | coverage | top hit relevant | a relevant tool in the top 3 |`);
  console.log('|---:|---:|---:|---:|');
  for (const t of thresholds) {
    const chosen = rows.filter((r) => r[key] >= t);
    const share = (f) => (chosen.length ? (chosen.filter(f).length / chosen.length).toFixed(3) : '—');
    console.log(`| ${t} | ${((100 * chosen.length) / rows.length).toFixed(1)}% | ${share((r) => r.right)} | ${share((r) => r.right3)} |`);
  }
}

/** The rule preload applies: each of the top 3 hits whose own score is at least t. */
function ruleTable(name, rows, thresholds) {
  console.log(`\n#### ${name}: preload each of the top 3 hits whose score ≥ t\n`);
  console.log('| t | requests with a preload | tools per such request | precision per preloaded tool | requests whose preloads hold a relevant tool |');
  console.log('|---:|---:|---:|---:|---:|');
  for (const t of thresholds) {
    let requests = 0;
    let tools = 0;
    let right = 0;
    let solved = 0;
    for (const r of rows) {
      const chosen = r.hits.filter((h) => h.score >= t);
      if (!chosen.length) continue;
      requests++;
      tools += chosen.length;
      right += chosen.filter((h) => h.relevant).length;
      if (chosen.some((h) => h.relevant)) solved++;
    }
    const f = (x) => (requests ? x.toFixed(3) : '—');
    console.log(`| ${t} | ${((100 * requests) / rows.length).toFixed(1)}% | ${requests ? (tools / requests).toFixed(2) : '—'} | ${f(right / tools)} | ${((100 * solved) / rows.length).toFixed(1)}% |`);
  }
}

const sets = [];
if (which === 'all' || which === 'metatool') {
  sets.push(['MetaTool even lines (dev)', readJsonl('metatool', 'tools.jsonl'), readJsonl('metatool', 'queries.jsonl').filter((_, i) => i % 2 === 0)]);
}
if (which === 'all' || which === 'multilingual') {
  sets.push(['multilingual dev split', readJsonl('multilingual', 'tools.jsonl'), readJsonl('multilingual', 'queries.jsonl').filter((q) => q.split === 'dev')]);
}
console.log(`Preload calibration, mode '${mode}' (node ${process.version})`);
for (const [name, catalog, requests] of sets) {
  const rows = await observe(catalog, requests);
  const scoreSteps = mode === 'hybrid' ? [0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 1] : [2, 4, 6, 8, 10, 12, 15, 20];
  table(name, rows, 'top', scoreSteps);
  table(name, rows, 'margin', mode === 'hybrid' ? [0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4] : [0, 1, 2, 3, 5, 8]);
  ruleTable(name, rows, scoreSteps);
}
