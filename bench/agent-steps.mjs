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
// Past traffic and counted tasks never share a request:
// - default (`--split test`): past traffic comes from the dev lines (MetaTool's even lines, the dev
//   splits of data/mcp and the multilingual set), the counted tasks from the test lines;
// - `--split dev` (tuning): both come from the dev lines, a deterministic half each: the dev
//   requests (per request language where the set has languages), in file order, go alternately to
//   past traffic and to the counted tasks; the sets are sorted by tool, so both halves are spread
//   over the tools; the test lines are never read.
// With --warmup N, rows with `learn` (docs/learning.md) first run N past tasks through the same
// processor, uncounted, spread over every tool round-robin (the pool repeats when N is larger), each
// from one of 100 users (a resource id per task); the counted tasks come from the same 100 users, and
// they teach the processor too as they run (learning from use does not stop at the counted tasks).
// The model that runs the counted tasks runs the past ones: a gullible model's wrong call "succeeds"
// and is learned, as it would be in a deployment. --unseen-tools F keeps a deterministic share F of
// the catalog's tools (spread over it) out of past traffic. Under the tables, each learn row is set
// beside its row without learn on the same tasks: tasks whose tool appeared in past traffic ("seen")
// and those whose tool did not ("unseen"), solved and calls per solved task each, wrong calls per task.
// --only <substring> runs only the rows whose label has it. bench/learning-curve.mjs runs the same
// machinery over a range of N.
//
//   node bench/agent-steps.mjs [--tasks 300] [--set metatool|mcp|multilingual] [--split test|dev]
//     [--model oracle|gullible|both] [--embedder[=minilm|mpnet|e5]] [--warmup N] [--learn '{...}'] [--unseen-tools F]
//     [--preload '{...}'] [--only <label part>] [--json]
//   (also part of `npm run bench`)
import { fileURLToPath } from 'node:url';
import { Agent } from '@mastra/core/agent';
import { ToolSearchProcessor as Reference } from '@mastra/core/processors';
import { RequestContext } from '@mastra/core/request-context';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';
import { ToolSearchProcessor as Native } from '../index.js';
import { localEncoder } from './local-encoder/index.mjs';
import { createRequire } from 'node:module';
import { hybridModelOption, mcpCatalog, mcpQueries, readJsonl } from './util.mjs';

const MAX_STEPS = 6;
export const USERS = 100;
export const LEARN_SUFFIX = ' + learn (global)';

/**
 * The rows: [label, Processor, search options, processor options]. `hybrid` is util's
 * hybridModelOption() (undefined: no hybrid rows); learn rows only when `warmup` > 0.
 */
export function configsFor({ hybrid = hybridModelOption(), warmup = 0, encoder } = {}) {
  const learn = { preload: true, learn: { scope: 'global' } };
  return [
    ['@mastra/core 1.59.0', Reference, {}],
    ['ours, compatible', Native, {}],
    ['ours, enhanced', Native, { mode: 'enhanced' }],
    ['ours, enhanced + preload', Native, { mode: 'enhanced' }, { preload: true }],
    ...(hybrid ? [['ours, hybrid', Native, { mode: 'hybrid', ...hybrid }]] : []),
    ...(hybrid ? [['ours, hybrid + preload', Native, { mode: 'hybrid', ...hybrid }, { preload: true }]] : []),
    ...(warmup > 0 ? [[`ours, enhanced + preload${LEARN_SUFFIX}`, Native, { mode: 'enhanced' }, learn]] : []),
    ...(hybrid && warmup > 0 ? [[`ours, hybrid + preload${LEARN_SUFFIX}`, Native, { mode: 'hybrid', ...hybrid }, learn]] : []),
    ...(encoder ? [[`ours, hybrid + embedder (${encoder.model.modelId}) + preload`, Native, { mode: 'hybrid', ...hybrid, embedder: encoder.model, embedderTimeoutMs: 60_000 }, { preload: true }]] : []),
  ];
}

function toolsOf(catalog) {
  const tools = {};
  for (const { id, description, inputSchema } of catalog) {
    // An MCP tool keeps its JSON Schema, as a client hands it over (its parameters are indexed),
    // with nothing required: the scripted models call tools with an empty input.
    const schema = inputSchema && typeof inputSchema === 'object' ? { ...inputSchema, required: [] } : z.object({}).passthrough();
    tools[id] = createTool({ id, description, inputSchema: schema, execute: async () => ({ ok: true, tool: id }) });
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

const MODELS = { oracle, gullible };

/** Runs one task with `model` through an Agent over `processor`, as `threadId` of `resourceId`. */
async function runTask(processor, model, query, threadId, resourceId) {
  const agent = new Agent({ id: 'bench', name: 'bench', instructions: 'Use the tools to help.', model, inputProcessors: [processor] });
  const requestContext = new RequestContext();
  requestContext.set('mastra__threadId', threadId);
  requestContext.set('mastra__resourceId', resourceId);
  await agent.generate(query, { maxSteps: MAX_STEPS, requestContext });
}

/**
 * Runs `tasks` through one processor configuration; one thread per task. With `learn`, the `past`
 * tasks run first, uncounted, with the same model (what they taught is in `pastRun`). `outcomes`
 * holds each counted task's result, in order, for the breakdowns.
 */
export async function runSet(tasks, catalog, [label, Processor, search, extra = {}], { past = [], model: modelName = 'oracle', preloadOverride = {}, learnOverride = {} } = {}) {
  const modelFor = MODELS[modelName];
  if (!modelFor) throw new TypeError(`model: 'oracle' or 'gullible', not ${JSON.stringify(modelName)}`);
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
  // Past tasks (learn rows): run first, uncounted, each from one of USERS resources. A call that
  // "succeeded" is what the processor may learn: relevant ones and (gullible model) wrong ones.
  const pastRun = extra.learn ? { tasks: past.length, relevantCalls: 0, wrongCalls: 0 } : undefined;
  if (extra.learn) {
    for (let i = 0; i < past.length; i++) {
      const { model, run } = modelFor(past[i]);
      await runTask(processor, model, past[i].query, `past-${i}`, `user-${i % USERS}`);
      if (run.solved) pastRun.relevantCalls++;
      pastRun.wrongCalls += run.wrongCalls ?? 0;
    }
  }
  const totals = { label, learned: extra.learn ? await processor.getLearningStats?.() : undefined, pastRun, tasks: tasks.length, solved: 0, callsSolved: 0, callsAll: 0, wrongCalls: 0, model: modelName, bytesSolved: 0, firstCall: 0, preloaded: 0, preloadedRelevant: 0, searchLoaded: 0, searchLoadedRelevant: 0, preload: Boolean(extra.preload), outcomes: [] };
  for (let i = 0; i < tasks.length; i++) {
    const { model, run } = modelFor(tasks[i]);
    await runTask(processor, model, tasks[i].query, `task-${i}`, `user-${(i * 7) % USERS}`);
    totals.callsAll += run.calls;
    totals.wrongCalls += run.wrongCalls ?? 0;
    const preloaded = preloads.get(`message:task-${i}`) ?? [];
    const preloadedRelevant = preloaded.filter((name) => tasks[i].relevant.includes(name)).length;
    totals.preloaded += preloaded.length;
    totals.preloadedRelevant += preloadedRelevant;
    const searchLoaded = preloads.get(`search:task-${i}`) ?? [];
    totals.searchLoaded += searchLoaded.length;
    totals.searchLoadedRelevant += searchLoaded.filter((name) => tasks[i].relevant.includes(name)).length;
    if (run.solved && run.calls === 1) totals.firstCall++;
    if (run.solved) {
      totals.solved++;
      totals.callsSolved += run.calls;
      totals.bytesSolved += run.bytes;
    }
    totals.outcomes.push({ solved: run.solved, calls: run.calls, wrongCalls: run.wrongCalls ?? 0, preloaded: preloaded.length, preloadedRelevant });
  }
  processor.dispose?.();
  return totals;
}

/** `count` tasks of `pool`, round-robin over their first relevant tool (repeating the pool when short). */
export function spreadOverTools(pool, count) {
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

/**
 * The counted requests and the past-traffic pool of a set (see the header): test split → the test
 * requests and the dev ones; dev split → the dev requests halved alternately, per language.
 */
export function splitRequests(dev, test, split) {
  if (split === 'test') return { counted: test, pastPool: dev };
  if (split !== 'dev') throw new TypeError(`split: 'test' or 'dev', not ${JSON.stringify(split)}`);
  // (per request language, so both halves keep the set's mix; the sets are sorted by tool, so
  // alternating also spreads both halves over the tools)
  const perLanguage = new Map();
  const counted = [];
  const pastPool = [];
  for (const request of dev) {
    const n = perLanguage.get(request.lang) ?? 0;
    perLanguage.set(request.lang, n + 1);
    (n % 2 === 0 ? pastPool : counted).push(request);
  }
  return { counted, pastPool };
}

/** A deterministic share `share` (0–1) of the catalog's tool ids, spread evenly over it. */
export function heldOutTools(catalog, share) {
  const out = new Set();
  if (!(share > 0)) return out;
  catalog.forEach(({ id }, i) => {
    if (Math.floor((i + 1) * share) > Math.floor(i * share)) out.add(id);
  });
  return out;
}

/** Past traffic: `warmup` requests of `pool` spread over its tools, none for a held-out tool. */
function pastTraffic(pool, catalog, warmup, unseenTools) {
  const held = heldOutTools(catalog, unseenTools);
  return spreadOverTools(pool.filter((q) => !q.relevant.some((tool) => held.has(tool))), warmup);
}

/**
 * The sets to run: { name, catalog, tasks, past }. `which`: 'all' | 'metatool' | 'mcp' |
 * 'multilingual'; `languages`: 'apart' (a set per request language, the tables' layout) or
 * 'together' (one multilingual set; its rows break down per language).
 */
export function buildSets({ which = 'all', split = 'test', taskCount = 300, warmup = 0, unseenTools = 0, languages = 'apart' } = {}) {
  const out = [];
  if (which === 'all' || which === 'metatool') {
    const lines = readJsonl('metatool', 'queries.jsonl');
    const catalog = readJsonl('metatool', 'tools.jsonl');
    const { counted, pastPool } = splitRequests(
      lines.filter((_, i) => i % 2 === 0),
      lines.filter((_, i) => i % 2 === 1),
      split,
    );
    const stride = Math.max(1, Math.floor(counted.length / taskCount));
    const tasks = counted.filter((_, i) => i % stride === 0).slice(0, taskCount);
    const name = split === 'dev' ? `MetaTool tuning half (${tasks.length} of the ${counted.length} even lines not used as past traffic)` : `MetaTool test half (${tasks.length} of ${counted.length} odd lines)`;
    out.push({ name, catalog, tasks, past: pastTraffic(pastPool, catalog, warmup, unseenTools) });
  }
  if (which === 'all' || which === 'mcp') {
    // data/mcp: real MCP servers' tools (one catalog, `<server>_<tool>`), requests in four languages
    const catalog = mcpCatalog();
    const all = mcpQueries();
    const { counted, pastPool } = splitRequests(all.filter((q) => q.split === 'dev'), all.filter((q) => q.split === 'test'), split);
    out.push({ name: `real MCP servers, ${split} half (${counted.length} requests, ${catalog.length} tools)`, catalog, tasks: counted, past: pastTraffic(pastPool, catalog, warmup, unseenTools) });
  }
  if (which === 'all' || which === 'multilingual') {
    const catalog = readJsonl('multilingual', 'tools.jsonl');
    const all = readJsonl('multilingual', 'queries.jsonl');
    const { counted, pastPool } = splitRequests(all.filter((q) => q.split === 'dev'), all.filter((q) => q.split === 'test'), split);
    const past = pastTraffic(pastPool, catalog, warmup, unseenTools);
    if (languages === 'together') out.push({ name: `multilingual ${split} half (${counted.length})`, catalog, tasks: counted, past });
    else {
      for (const lang of [...new Set(counted.map((q) => q.lang))]) {
        const tasks = counted.filter((q) => q.lang === lang);
        out.push({ name: `multilingual ${split} half, ${lang} (${tasks.length})`, catalog, tasks, past });
      }
    }
  }
  if (out.length === 0) throw new TypeError(`set: 'all', 'metatool', 'mcp' or 'multilingual', not ${JSON.stringify(which)}`);
  return out;
}

/** Whether each task's tool never appeared in `past` (none of its relevant tools was a past request's). */
export function unseenMask(tasks, past) {
  const pastTools = new Set(past.flatMap((q) => q.relevant));
  return tasks.map((t) => !t.relevant.some((tool) => pastTools.has(tool)));
}

/** Solved, calls and wrong calls over the counted tasks `outcomes[i]` for which `keep(i)` holds. */
export function summarize(outcomes, keep = () => true) {
  const s = { tasks: 0, solved: 0, callsSolved: 0, wrongCalls: 0, preloaded: 0, preloadedRelevant: 0 };
  outcomes.forEach((o, i) => {
    if (!keep(i)) return;
    s.tasks++;
    s.wrongCalls += o.wrongCalls;
    s.preloaded += o.preloaded;
    s.preloadedRelevant += o.preloadedRelevant;
    if (o.solved) {
      s.solved++;
      s.callsSolved += o.calls;
    }
  });
  return s;
}

/**
 * For a learn row beside its row without learn (same set, model and tasks): per part of the tasks
 * (seen, unseen, and per request language when the tasks have one) both rows' summaries.
 */
export function compareWithBase(row, base, tasks, past) {
  const unseen = unseenMask(tasks, past);
  const parts = { seen: (i) => !unseen[i], unseen: (i) => unseen[i] };
  const languages = [...new Set(tasks.map((t) => t.lang).filter(Boolean))];
  if (languages.length > 1) for (const lang of languages) parts[lang] = (i) => tasks[i].lang === lang;
  const out = {};
  for (const [name, keep] of Object.entries(parts)) out[name] = { learn: summarize(row.outcomes, keep), without: summarize(base.outcomes, keep) };
  return out;
}

export async function run({ taskCount = 300, set = 'all', split = 'test', warmup = 0, unseenTools = 0, models = ['oracle', 'gullible'], only, preloadOverride = {}, learnOverride = {}, encoder, hybrid = hybridModelOption(), languages = 'apart' } = {}) {
  const results = [];
  const configs = configsFor({ hybrid, warmup, encoder });
  for (const s of buildSets({ which: set, split, taskCount, warmup, unseenTools, languages })) {
    await encoder?.warm(s.tasks.map((t) => t.query));
    for (const model of models) {
      const rows = [];
      for (const config of configs) {
        // A learn row needs its row without learn beside it, whatever --only says.
        const needed = !only || config[0].includes(only) || configs.some((c) => c[0].includes(only) && c[0] === config[0] + LEARN_SUFFIX);
        if (!needed) continue;
        // (the gullible model: compatible ranks as the reference, so its row would repeat it)
        if (model === 'gullible' && config[0] === 'ours, compatible') continue;
        rows.push({ set: s.name, ...(await runSet(s.tasks, s.catalog, config, { past: s.past, model, preloadOverride, learnOverride })) });
      }
      for (const row of rows) {
        if (!row.label.endsWith(LEARN_SUFFIX)) continue;
        const base = rows.find((r) => r.label === row.label.slice(0, -LEARN_SUFFIX.length));
        if (base) row.versusWithout = { label: base.label, parts: compareWithBase(row, base, s.tasks, s.past) };
      }
      results.push(...rows);
    }
  }
  return results;
}

const per = (x, n) => (n ? (x / n).toFixed(2) : '—');
const pct = (x, n) => (n ? `${((100 * x) / n).toFixed(1)}%` : '—');

export function printTables(results) {
  for (const set of [...new Set(results.map((r) => r.set))]) {
    console.log(`\n#### ${set}\n`);
    console.log('| processor | model | solved | solved at the first call | model calls per solved task | model calls per task | wrong tool calls per task | input KB per solved task | preload precision (tools) | relevant among search loads (tools) |');
    console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const r of results.filter((x) => x.set === set)) {
      const share = (relevant, n) => (r.preload ? (n ? `${(relevant / n).toFixed(2)} (${n})` : '— (0)') : '—');
      const precision = share(r.preloadedRelevant, r.preloaded);
      const searchShare = share(r.searchLoadedRelevant, r.searchLoaded);
      console.log(`| ${r.label} | ${r.model} | ${((100 * r.solved) / r.tasks).toFixed(1)}% | ${((100 * r.firstCall) / r.tasks).toFixed(1)}% | ${per(r.callsSolved, r.solved)} | ${per(r.callsAll, r.tasks)} | ${per(r.wrongCalls, r.tasks)} | ${r.solved ? (r.bytesSolved / r.solved / 1024).toFixed(1) : '—'} | ${precision} | ${searchShare} |`);
    }
    printLearnComparison(results.filter((x) => x.set === set && x.versusWithout));
  }
}

/** Each learn row beside its row without learn, per part of the same tasks (seen/unseen tools, language). */
function printLearnComparison(rows) {
  if (rows.length === 0) return;
  console.log('\nWith learn vs without, on the same tasks (seen: a relevant tool appeared in past traffic; solved / model calls per solved task / wrong tool calls per task):\n');
  console.log('| row | model | past traffic (relevant calls, wrong calls) | tasks | part | with learn | without |');
  console.log('|---|---|---|---:|---|---|---|');
  for (const r of rows) {
    const taught = `${r.pastRun.tasks} (${r.pastRun.relevantCalls}, ${r.pastRun.wrongCalls})`;
    for (const [part, { learn, without }] of Object.entries(r.versusWithout.parts)) {
      if (learn.tasks === 0) continue;
      const cell = (s) => `${pct(s.solved, s.tasks)} / ${per(s.callsSolved, s.solved)} / ${per(s.wrongCalls, s.tasks)}`;
      console.log(`| ${r.label} | ${r.model} | ${taught} | ${learn.tasks} | ${part} | ${cell(learn)} | ${cell(without)} |`);
    }
  }
}

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const hybrid = hybridModelOption();
  // --embedder (MiniLM) or --embedder=mpnet|e5: also 'hybrid' with a real encoder as
  // search.embedder (bench/local-encoder).
  const embedderArg = process.argv.find((a) => a === '--embedder' || a.startsWith('--embedder='));
  const encoder = hybrid && embedderArg ? await localEncoder(embedderArg.split('=')[1] ?? 'minilm') : undefined;
  // A local encoder can take longer than the 10 s a catalog's first step waits for its vectors;
  // the row must measure the embedder, not the fallback.
  if (encoder) createRequire(import.meta.url)('../js/embedder.js').TIMINGS.catalogWaitMs = 30 * 60_000;
  const modelOption = option('model', 'both');
  const models = modelOption === 'both' ? ['oracle', 'gullible'] : [modelOption];
  if (models.some((m) => !(m in MODELS))) throw new Error(`--model: oracle, gullible or both, not ${modelOption}`);
  const results = await run({
    taskCount: Number(option('tasks', 300)),
    set: option('set', 'all'),
    // --split dev: the tuning halves (see the header).
    split: option('split', 'test'),
    // --warmup N: past tasks each learn row sees first; --learn '{...}': its learn options.
    warmup: Number(option('warmup', 0)),
    learnOverride: JSON.parse(option('learn', '{}')),
    unseenTools: Number(option('unseen-tools', 0)),
    // --preload '{"searchMinConfidence":0.3}': preload options for every preload row (tuning).
    preloadOverride: JSON.parse(option('preload', '{}')),
    models,
    only: option('only', undefined),
    encoder,
    hybrid,
  });
  if (process.argv.includes('--json')) console.log(JSON.stringify(results.map(({ outcomes, ...row }) => row)));
  else {
    console.log(`Agent steps with an oracle model (node ${process.version}; max ${MAX_STEPS} steps, topK 5)`);
    printTables(results);
  }
  encoder?.close();
}
