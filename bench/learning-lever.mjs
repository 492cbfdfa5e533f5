// The issue's first measurement of learning's lever, on agent-steps' split and traffic: each
// tool's description extended with the past requests it served (a past task counts as served
// when its tool is among the zero-shot top 5, as the oracle would find it), against zero-shot
// search. docs/learning.md compares it with the learned ranking ("What is not done yet").
//
//   node bench/learning-lever.mjs [--mode hybrid|enhanced] [--set metatool|mcp|multilingual] [--split dev|test] [--warmup 2000]
import { createTool } from '@mastra/core/tools';
import { MessageList } from '@mastra/core/agent';
import { RequestContext } from '@mastra/core/request-context';
import { ToolSearchProcessor } from '../index.js';
import { buildSets } from './agent-steps.mjs';
import { hybridModelOption } from './util.mjs';

const option = (name, fallback) => (process.argv.includes(`--${name}`) ? process.argv[process.argv.indexOf(`--${name}`) + 1] : fallback);
const mode = option('mode', 'hybrid');
const split = option('split', 'dev');

/** search_tools over `catalog` (topK 5) as a function of the query. */
async function searcher(catalog) {
  const tools = {};
  for (const { id, description } of catalog) tools[id] = createTool({ id, description, execute: async () => ({ id }) });
  const processor = new ToolSearchProcessor({ tools, search: { topK: 5, minScore: 0, mode, ...(mode === 'hybrid' ? hybridModelOption() : {}) } });
  const step = await processor.processInputStep({ tools: {}, messageList: new MessageList({ threadId: 'q', resourceId: 'r' }), requestContext: new RequestContext(), messages: [], stepNumber: 0 });
  return async (query) => (await step.tools.search_tools.execute({ query }, {})).results.map((r) => r.name);
}

const sets = buildSets({ which: option('set', 'metatool'), split, warmup: Number(option('warmup', 2000)), languages: 'together' });
for (const { name, catalog, tasks, past } of sets) {
  const zeroShot = await searcher(catalog);
  const served = new Map();
  for (const task of past) {
    const top = await zeroShot(task.query);
    const tool = task.relevant.find((t) => top.includes(t));
    if (tool) served.set(tool, [...(served.get(tool) ?? []), task.query]);
  }
  const expanded = await searcher(catalog.map((t) => ({ ...t, description: [t.description, ...(served.get(t.id) ?? [])].join('\n') })));
  const count = { zeroShot1: 0, zeroShot5: 0, expanded1: 0, expanded5: 0 };
  for (const task of tasks) {
    const relevant = (n) => task.relevant.includes(n);
    const [a, b] = [await zeroShot(task.query), await expanded(task.query)];
    count.zeroShot1 += relevant(a[0]) ? 1 : 0;
    count.zeroShot5 += a.some(relevant) ? 1 : 0;
    count.expanded1 += relevant(b[0]) ? 1 : 0;
    count.expanded5 += b.some(relevant) ? 1 : 0;
  }
  const servedCount = [...served.values()].reduce((n, list) => n + list.length, 0);
  console.log(`${name}, ${mode}: ${past.length} past tasks (${servedCount} served); of ${tasks.length} tasks the right tool first / in the top 5: zero-shot ${count.zeroShot1} / ${count.zeroShot5}, expanded ${count.expanded1} / ${count.expanded5}`);
}
