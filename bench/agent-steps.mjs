// What users pay for tool search: model calls, bytes sent to the model and solved tasks, with a real
// Mastra Agent and an oracle model, @mastra/core 1.59.0's ToolSearchProcessor and ours side by side.
//
// The oracle is a model that always recognises the right tool when it sees it; per step it
//   1. calls a relevant tool when one is offered (the task is solved: that call is the last counted);
//   2. else, when load_tool is offered and its last search_tools result lists a relevant tool, loads
//      the first such tool;
//   3. else, when search_tools is offered and nothing was searched yet, searches with the request;
//   4. else gives up (a text answer).
// So any difference between rows is the processor's: what it offers, what its search finds.
// The gullible model (rows marked `gullible`) calls whatever offered
// tool shares the most words with the request, relevant or not: its wrong tool calls per task are
// what wrong preloads and search loads cost a weak model (a wrong call can send or delete something).
//
// Sets (test halves only; tune on the others): MetaTool's odd query lines (a deterministic sample of
// --tasks, default 300) over its 199 tools, the real MCP servers' test split (data/mcp, 440 tools in
// one catalog), and the multilingual set's test split over its 128 tools, per request language. Per set and processor: solved share, the share solved at the first model
// call, model calls per solved task, calls per task (a failure counts the calls it made), input bytes
// per solved task (the JSON of the tool definitions and the prompt of every call, as the provider
// would get them), and with preload the share of preloaded tools that were relevant (the user
// message's preloads) and the share of relevant tools among those a search loaded.
//
// With --warmup N, rows with `learn` (docs/learning.md) first run N past tasks through the same
// processor, uncounted: requests of the other half (the dev lines; the test lines with --split dev),
// spread over every tool round-robin, each from one of 100 users (a resource id per task); the
// counted tasks come from the same 100 users. --only <substring> runs only the rows whose label
// has it.
//
//   node bench/agent-steps.mjs [--tasks 300] [--set metatool|mcp|multilingual] [--model oracle|gullible|both] [--embedder] [--warmup N] [--json]
//   (also part of `npm run bench`)
import { fileURLToPath } from 'node:url';
import { Agent } from '@mastra/core/agent';
import { ToolSearchProcessor as Reference } from '@mastra/core/processors';
import { RequestContext } from '@mastra/core/request-context';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';
import { ToolSearchProcessor as Native } from '../index.js';
import { localEncoder } from './local-encoder/index.mjs';
import { hybridModelOption, mcpCatalog, mcpQueries, readJsonl } from './util.mjs';

const MAX_STEPS = 6;

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
}

const hybrid = hybridModelOption();
// --split dev: the tuning halves (MetaTool's even lines, the multilingual dev split) instead.
const split = option('split', 'test');
// --preload '{"searchMinConfidence":0.3}': preload options for every preload row (tuning).
const preloadOverride = JSON.parse(option('preload', '{}'));
// --embedder: also 'hybrid' with a real encoder as search.embedder (bench/local-encoder).
const encoder = hybrid && process.argv.includes('--embedder') ? await localEncoder() : undefined;
// --warmup N: past tasks each learn row sees first (see above); --learn '{...}': its learn options.
const warmup = Number(option('warmup', 0));
const learnOverride = JSON.parse(option('learn', '{}'));
const only = option('only', undefined);
const USERS = 100;
// --model oracle | gullible | both (default): which model runs the tasks (see gullible()).
const MODELS = { oracle: () => oracle, gullible: () => gullible };
const modelNames = option('model', 'both') === 'both' ? ['oracle', 'gullible'] : [option('model', 'both')];
if (modelNames.some((m) => !(m in MODELS))) throw new Error(`--model: oracle, gullible or both, not ${option('model')}`);

export const CONFIGS = [
  ['@mastra/core 1.59.0', Reference, {}],
  ['ours, compatible', Native, {}],
  ['ours, enhanced', Native, { mode: 'enhanced' }],
  ['ours, enhanced + preload', Native, { mode: 'enhanced' }, { preload: true }],
  ...(hybrid ? [['ours, hybrid', Native, { mode: 'hybrid', ...hybrid }]] : []),
  ...(hybrid ? [['ours, hybrid + preload', Native, { mode: 'hybrid', ...hybrid }, { preload: true }]] : []),
  ...(warmup > 0 ? [['ours, enhanced + preload + learn (global)', Native, { mode: 'enhanced' }, { preload: true, learn: { scope: 'global' } }]] : []),
  ...(hybrid && warmup > 0 ? [['ours, hybrid + preload + learn (global)', Native, { mode: 'hybrid', ...hybrid }, { preload: true, learn: { scope: 'global' } }]] : []),
  ...(encoder ? [['ours, hybrid + embedder (MiniLM) + preload', Native, { mode: 'hybrid', ...hybrid, embedder: encoder.model, embedderTimeoutMs: 60_000 }, { preload: true }]] : []),
];

function toolsOf(catalog) {
  const tools = {};
  for (const { id, description } of catalog) {
    tools[id] = createTool({ id, description, inputSchema: z.object({}).passthrough(), execute: async () => ({ ok: true, tool: id }) });
  }
  return tools;
}

/** The last search_tools result in the prompt (AI SDK v2 prompt format), or undefined. */
function lastSearch(prompt) {
  for (let i = prompt.length - 1; i >= 0; i--) {
    if (prompt[i].role !== 'tool') continue;
    const part = prompt[i].content.find((p) => p.type === 'tool-result' && p.toolName === 'search_tools');
    if (part) return part.output?.value ?? part.output;
  }
  return undefined;
}

/** Lower-cased words of 3+ letters (any script's letters and digits) of `text`. */
function wordsOf(text) {
  return new Set((String(text).toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []).flatMap((w) => w.split('_')));
}

/** How many words of `request` (a set) `text` shares. */
function overlap(request, text) {
  let n = 0;
  for (const w of wordsOf(text)) if (request.has(w)) n++;
  return n;
}

/**
 * A gullible model for one task: it calls whichever offered tool (not a meta-tool) shares the most
 * words with the request (name and description), relevant or not, as a weak model trusting what it
 * is offered would; else it loads the last search's hit sharing the most words; else it searches
 * once with the request. A call of a wrong tool "succeeds" and ends the task unsolved: that is the
 * harm a wrong preload or search load does (a wrong call can send or delete something).
 */
function gullible(task) {
  const relevant = new Set(task.relevant);
  const request = wordsOf(task.query);
  const run = { calls: 0, bytes: 0, solved: false, searched: false, wrongCalls: 0, done: false };
  const reply = (content, finishReason) => ({
    content,
    finishReason,
    warnings: [],
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    response: { id: `r-${run.calls}`, modelId: 'gullible', timestamp: new Date(0) },
  });
  const call = (toolName, input) => reply([{ type: 'tool-call', toolCallId: `c-${run.calls}`, toolName, input: JSON.stringify(input) }], 'tool-calls');
  const best = (items, textOf) => {
    let top;
    let topScore = 0;
    for (const item of items) {
      const score = overlap(request, textOf(item));
      if (score > topScore) [top, topScore] = [item, score];
    }
    return top;
  };
  const model = {
    specificationVersion: 'v2',
    provider: 'bench',
    modelId: 'gullible',
    supportedUrls: {},
    async doGenerate({ tools = [], prompt }) {
      if (run.done) return reply([{ type: 'text', text: 'done' }], 'stop');
      run.calls++;
      run.bytes += Buffer.byteLength(JSON.stringify({ tools, prompt }));
      const offered = tools.map((t) => t.name);
      const pick = best(tools.filter((t) => t.name !== 'search_tools' && t.name !== 'load_tool'), (t) => `${t.name} ${t.description ?? ''}`);
      if (pick) {
        run.done = true;
        if (relevant.has(pick.name)) run.solved = true;
        else run.wrongCalls++;
        return call(pick.name, {});
      }
      const found = lastSearch(prompt);
      const hit = Array.isArray(found?.results) ? best(found.results, (r) => `${r.name} ${r.description ?? ''}`) : undefined;
      if (hit && offered.includes('load_tool') && !run.loaded) {
        run.loaded = true;
        return call('load_tool', { toolName: hit.name });
      }
      if (!run.searched && offered.includes('search_tools')) {
        run.searched = true;
        return call('search_tools', { query: task.query });
      }
      run.done = true;
      return reply([{ type: 'text', text: 'I cannot find a tool for this.' }], 'stop');
    },
    async doStream() {
      throw new Error('generate() only');
    },
  };
  return { model, run };
}

/** The oracle for one task: counts its calls and the bytes it is sent until the task is solved. */
function oracle(task) {
  const relevant = new Set(task.relevant);
  const run = { calls: 0, bytes: 0, solved: false, searched: false };
  const reply = (content, finishReason) => ({
    content,
    finishReason,
    warnings: [],
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    response: { id: `r-${run.calls}`, modelId: 'oracle', timestamp: new Date(0) },
  });
  const call = (toolName, input) => reply([{ type: 'tool-call', toolCallId: `c-${run.calls}`, toolName, input: JSON.stringify(input) }], 'tool-calls');
  const model = {
    specificationVersion: 'v2',
    provider: 'bench',
    modelId: 'oracle',
    supportedUrls: {},
    async doGenerate({ tools = [], prompt }) {
      if (run.solved) return reply([{ type: 'text', text: 'done' }], 'stop');
      run.calls++;
      run.bytes += Buffer.byteLength(JSON.stringify({ tools, prompt }));
      const offered = tools.map((t) => t.name);
      const hit = offered.find((name) => relevant.has(name));
      if (hit) {
        run.solved = true;
        return call(hit, {});
      }
      const found = lastSearch(prompt);
      const listed = Array.isArray(found?.results) ? found.results.map((r) => r.name).find((name) => relevant.has(name)) : undefined;
      if (listed && offered.includes('load_tool')) return call('load_tool', { toolName: listed });
      if (!run.searched && offered.includes('search_tools')) {
        run.searched = true;
        return call('search_tools', { query: task.query });
      }
      return reply([{ type: 'text', text: 'I cannot find a tool for this.' }], 'stop');
    },
    async doStream() {
      throw new Error('generate() only');
    },
  };
  return { model, run };
}

/** Runs `tasks` through one processor configuration; one thread per task. */
export async function runSet(tasks, catalog, [label, Processor, search, extra = {}], past = [], modelName = 'oracle') {
  const modelFor = MODELS[modelName]();
  // Preloads, by thread, as the processor reports them.
  const preloads = new Map();
  const options = { ...extra };
  if (extra.learn) options.learn = { ...extra.learn, ...learnOverride };
  if (extra.preload) {
    // (the user message's preloads, and apart from them each search's loads)
    const onPreload = (e) => {
      const key = `${e.trigger === 'search' ? 'search' : 'message'}:${e.threadId}`;
      preloads.set(key, [...(preloads.get(key) ?? []), ...e.tools.map((t) => t.name)]);
    };
    options.preload = { ...(extra.preload === true ? {} : extra.preload), ...preloadOverride, onPreload };
  }
  const processor = new Processor({ tools: toolsOf(catalog), search: { topK: 5, ...search }, ...options });
  // Past tasks (learn rows): run first, uncounted, each from one of USERS resources.
  if (extra.learn) {
    for (let i = 0; i < past.length; i++) {
      const { model } = modelFor(past[i]);
      const agent = new Agent({ id: 'bench', name: 'bench', instructions: 'Use the tools to help.', model, inputProcessors: [processor] });
      const requestContext = new RequestContext();
      requestContext.set('mastra__threadId', `past-${i}`);
      requestContext.set('mastra__resourceId', `user-${i % USERS}`);
      await agent.generate(past[i].query, { maxSteps: MAX_STEPS, requestContext });
    }
  }
  const totals = { label, learned: extra.learn ? processor.getLearningStats() : undefined, tasks: tasks.length, solved: 0, callsSolved: 0, callsAll: 0, wrongCalls: 0, model: modelName, bytesSolved: 0, firstCall: 0, preloaded: 0, preloadedRelevant: 0, searchLoaded: 0, searchLoadedRelevant: 0, preload: Boolean(extra.preload) };
  for (let i = 0; i < tasks.length; i++) {
    const { model, run } = modelFor(tasks[i]);
    const agent = new Agent({ id: 'bench', name: 'bench', instructions: 'Use the tools to help.', model, inputProcessors: [processor] });
    const requestContext = new RequestContext();
    requestContext.set('mastra__threadId', `task-${i}`);
    requestContext.set('mastra__resourceId', `user-${(i * 7) % USERS}`);
    await agent.generate(tasks[i].query, { maxSteps: MAX_STEPS, requestContext });
    totals.callsAll += run.calls;
    totals.wrongCalls += run.wrongCalls ?? 0;
    const preloaded = preloads.get(`message:task-${i}`) ?? [];
    totals.preloaded += preloaded.length;
    totals.preloadedRelevant += preloaded.filter((name) => tasks[i].relevant.includes(name)).length;
    const searchLoaded = preloads.get(`search:task-${i}`) ?? [];
    totals.searchLoaded += searchLoaded.length;
    totals.searchLoadedRelevant += searchLoaded.filter((name) => tasks[i].relevant.includes(name)).length;
    if (run.solved && run.calls === 1) totals.firstCall++;
    if (run.solved) {
      totals.solved++;
      totals.callsSolved += run.calls;
      totals.bytesSolved += run.bytes;
    }
  }
  processor.dispose?.();
  return totals;
}

/** `count` tasks of `pool`, round-robin over their first relevant tool (repeating the pool when short). */
function spreadOverTools(pool, count) {
  if (count <= 0 || pool.length === 0) return [];
  const byTool = new Map();
  for (const task of pool) {
    const tool = task.relevant[0];
    if (!byTool.has(tool)) byTool.set(tool, []);
    byTool.get(tool).push(task);
  }
  const queues = [...byTool.values()];
  const out = [];
  for (let round = 0; out.length < count; round++) {
    for (const queue of queues) {
      if (out.length >= count) break;
      out.push(queue[round % queue.length]);
    }
  }
  return out;
}

function sets(taskCount) {
  const out = [];
  const which = option('set', 'all');
  if (which === 'all' || which === 'metatool') {
    const parity = split === 'dev' ? 0 : 1;
    const half = readJsonl('metatool', 'queries.jsonl').filter((_, i) => i % 2 === parity);
    const stride = Math.max(1, Math.floor(half.length / taskCount));
    const tasks = half.filter((_, i) => i % stride === 0).slice(0, taskCount);
    const other = readJsonl('metatool', 'queries.jsonl').filter((_, i) => i % 2 !== parity);
    out.push({ name: `MetaTool ${split === 'dev' ? 'tuning' : 'test'} half (${tasks.length} of ${half.length} ${parity ? 'odd' : 'even'} lines)`, catalog: readJsonl('metatool', 'tools.jsonl'), tasks, past: spreadOverTools(other, warmup) });
  }
  if (which === 'all' || which === 'mcp') {
    // data/mcp: real MCP servers' tools (one catalog, `<server>_<tool>`), requests in four languages
    const catalog = mcpCatalog();
    const all = mcpQueries();
    const tasks = all.filter((q) => q.split === split);
    out.push({ name: `real MCP servers, ${split} half (${tasks.length} requests, ${catalog.length} tools)`, catalog, tasks, past: spreadOverTools(all.filter((q) => q.split !== split), warmup) });
  }
  if (which === 'all' || which === 'multilingual') {
    const catalog = readJsonl('multilingual', 'tools.jsonl');
    const test = readJsonl('multilingual', 'queries.jsonl').filter((q) => q.split === split);
    const past = spreadOverTools(readJsonl('multilingual', 'queries.jsonl').filter((q) => q.split !== split), warmup);
    for (const lang of [...new Set(test.map((q) => q.lang))]) {
      const tasks = test.filter((q) => q.lang === lang);
      out.push({ name: `multilingual ${split} half, ${lang} (${tasks.length})`, catalog, tasks, past });
    }
  }
  return out;
}

export async function run({ taskCount = 300 } = {}) {
  const results = [];
  for (const set of sets(taskCount)) {
    await encoder?.warm(set.tasks.map((t) => t.query));
    for (const modelName of modelNames) {
      for (const config of CONFIGS) {
        if (only && !config[0].includes(only)) continue;
        // (the gullible model: compatible ranks as the reference, so its row would repeat it)
        if (modelName === 'gullible' && config[0] === 'ours, compatible') continue;
        results.push({ set: set.name, ...(await runSet(set.tasks, set.catalog, config, set.past, modelName)) });
      }
    }
  }
  return results;
}

export function printTables(results) {
  for (const set of [...new Set(results.map((r) => r.set))]) {
    console.log(`\n#### ${set}\n`);
    console.log('| processor | model | solved | solved at the first call | model calls per solved task | model calls per task | wrong tool calls per task | input KB per solved task | preload precision (tools) | relevant among search loads (tools) |');
    console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const r of results.filter((x) => x.set === set)) {
      const per = (x, n) => (n ? (x / n).toFixed(2) : '—');
      const share = (relevant, n) => (r.preload ? (n ? `${(relevant / n).toFixed(2)} (${n})` : '— (0)') : '—');
      const precision = share(r.preloadedRelevant, r.preloaded);
      const searchShare = share(r.searchLoadedRelevant, r.searchLoaded);
      console.log(`| ${r.label} | ${r.model} | ${((100 * r.solved) / r.tasks).toFixed(1)}% | ${((100 * r.firstCall) / r.tasks).toFixed(1)}% | ${per(r.callsSolved, r.solved)} | ${per(r.callsAll, r.tasks)} | ${per(r.wrongCalls, r.tasks)} | ${r.solved ? (r.bytesSolved / r.solved / 1024).toFixed(1) : '—'} | ${precision} | ${searchShare} |`);
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const results = await run({ taskCount: Number(option('tasks', 300)) });
  if (process.argv.includes('--json')) console.log(JSON.stringify(results));
  else {
    console.log(`Agent steps with an oracle model (node ${process.version}; max ${MAX_STEPS} steps, topK 5)`);
    printTables(results);
  }
  encoder?.close();
}
