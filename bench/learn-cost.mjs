// What `learn` costs: a step at 10,000 realistic tools (bench/tool-search-realistic.mjs) with
// 100,000 learned examples, against the same step without learn; the learned-evidence lookup
// alone (one native call per step); and the memory 100,000 examples take. Examples are taught
// through the processor's own signal (a user message and a catalog tool call that returned),
// from 100 users, in scope 'global' (one partition holds them all: the worst case).
//
//   npm run build && node --expose-gc bench/learn-cost.mjs [--quick]
import { createRequire } from 'node:module';
import { MessageList } from '@mastra/core/agent';
import { RequestContext } from '@mastra/core/request-context';
import { ToolSearchProcessor } from '../index.mjs';
import { metatoolQueries, realisticTools } from './tool-search-realistic.mjs';
import { hybridModelOption, median, percentile, rng, settle, time } from './util.mjs';

const require = createRequire(import.meta.url);
const { ToolLearning } = require('../js/learn/index.js');
const { learnOptionsOf } = require('../js/learn/options.js');
const { loadSemanticModel } = require('../js/semantic.js');

const WORDS = ['today', 'tomorrow', 'please', 'for my team', 'in Paris', 'urgently', 'again', 'for work', 'cheaply', 'this weekend', 'near me', 'in detail'];
const USERS = 100;

function stepArgs(text, threadId, resource = 'bench-user', messages = [{ role: 'user', content: text }]) {
  const requestContext = new RequestContext();
  requestContext.set('mastra__threadId', threadId);
  requestContext.set('mastra__resourceId', resource);
  return { tools: {}, messageList: new MessageList({ threadId, resourceId: resource }), requestContext, messages, stepNumber: 0 };
}

/** `count` past requests (MetaTool's, varied so they are distinct), each with a tool of `ids`. */
function pastTraffic(ids, count) {
  const queries = metatoolQueries();
  const random = rng(7);
  const out = [];
  for (let i = 0; i < count; i++) {
    const q = queries[Math.floor(random() * queries.length)];
    out.push({ text: `${q} ${WORDS[i % WORDS.length]} #${i}`, tool: ids[Math.floor(random() * ids.length)] });
  }
  return out;
}

/** Teaches `past` through the processor's signal, in batches of conversations. */
async function teach(processor, past, batch = 1000) {
  for (let at = 0; at < past.length; at += batch) {
    const messages = [];
    for (let i = at; i < Math.min(past.length, at + batch); i++) {
      messages.push({ role: 'user', content: past[i].text });
      messages.push({ role: 'assistant', content: { parts: [{ type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: `c${i}`, toolName: past[i].tool, result: {} } }] } });
    }
    await processor.processInputStep(stepArgs('', `teach-${at}`, `user-${(at / batch) % USERS}`, messages));
  }
}

async function stepSamples(processor, qs, label) {
  for (let i = 0; i < 200; i++) await processor.processInputStep(stepArgs(`${qs[i % qs.length]} (warm-up ${i})`, `w-${label}-${i}`));
  const samples = [];
  for (let i = 0; i < qs.length; i++) samples.push(await time(() => processor.processInputStep(stepArgs(qs[i], `s-${label}-${i}`))));
  return samples;
}

export async function run({ quick = false } = {}) {
  const toolCount = 10_000;
  const exampleCount = quick ? 20_000 : 100_000;
  const hybrid = hybridModelOption();
  const tools = realisticTools(toolCount);
  const ids = Object.keys(tools);
  const all = metatoolQueries();
  // (measured requests: every 97th MetaTool query, unlike the taught ones' varied texts)
  const qs = Array.from({ length: quick ? 200 : 1000 }, (_, i) => all[(i * 97) % all.length]);
  const past = pastTraffic(ids, exampleCount);
  // The lookup alone, and memory (first, so that no processor's garbage muddies the RSS): a ToolLearning filled directly (hybrid's vectors when the model is there).
  const model = hybrid ? loadSemanticModel(hybrid.model, 'bench') : undefined;
  const memory = [];
  const lookups = [];
  for (const withModel of model ? [false, true] : [false]) {
    await settle();
    const before = process.memoryUsage();
    const learning = new ToolLearning(learnOptionsOf({ scope: 'global', maxExamples: 200_000, maxBytes: 1 << 30 }, 'bench'), withModel ? model : undefined);
    for (let at = 0; at < past.length; at += 1000) {
      const messages = [];
      for (let i = at; i < Math.min(past.length, at + 1000); i++) {
        messages.push({ role: 'user', content: past[i].text });
        messages.push({ role: 'assistant', content: { parts: [{ type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: `c${i}`, toolName: past[i].tool, result: {} } }] } });
      }
      const requestContext = new RequestContext();
      requestContext.set('mastra__resourceId', `user-${(at / 1000) % USERS}`);
      // (a stand-in catalog: the calls resolve in message order, each to its own tool)
      let next = at;
      const catalog = { native: { resolve: () => [0] }, idAt: () => past[next++].tool, keyAt: () => undefined, toolAt: () => ({}) };
      await learning.observe({ requestContext, messages }, catalog, false, async () => true);
    }
    await settle();
    const after = process.memoryUsage();
    const ctx = new RequestContext();
    ctx.set('mastra__resourceId', 'user-1');
    for (let i = 0; i < 300; i++) learning.votes(`${qs[i % qs.length]} warm`, ctx);
    const samples = qs.map((q) => {
      const t0 = performance.now();
      learning.votes(q, ctx);
      return performance.now() - t0;
    });
    lookups.push({ withModel, samples, stats: learning.stats() });
    memory.push({ withModel, rssMB: (after.rss - before.rss) / 2 ** 20, stats: learning.stats() });
  }
  const rows = [];
  for (const mode of hybrid ? ['enhanced', 'hybrid'] : ['enhanced']) {
    const search = { mode, ...(mode === 'hybrid' ? hybrid : {}) };
    const plain = new ToolSearchProcessor({ tools, search, preload: true });
    const learning = new ToolSearchProcessor({ tools, search, preload: true, learn: { scope: 'global', maxExamples: 200_000, maxBytes: 1 << 30 } });
    await teach(learning, past);
    const without = await stepSamples(plain, qs, `${mode}-plain`);
    const withLearn = await stepSamples(learning, qs, `${mode}-learn`);
    const stats = learning.getLearningStats();
    rows.push({ mode, examples: stats.examples, without, withLearn });
    plain.dispose();
    learning.dispose();
  }
  return { toolCount, exampleCount, rows, lookups, memory };
}

export function printLearnCost(r) {
  const ms = (x) => `${x.toFixed(3)} ms`;
  console.log(`\n### learn: cost at ${r.toolCount.toLocaleString('en')} tools with ${r.exampleCount.toLocaleString('en')} learned examples (bench/learn-cost.mjs)\n`);
  console.log('| what | p50 | p95 |');
  console.log('|---|---:|---:|');
  for (const { mode, examples, without, withLearn } of r.rows) {
    console.log(`| first step, ${mode} + preload, without learn | ${ms(median(without))} | ${ms(percentile(without, 95))} |`);
    console.log(`| first step, ${mode} + preload, learn (${examples.toLocaleString('en')} examples) | ${ms(median(withLearn))} | ${ms(percentile(withLearn, 95))} |`);
    console.log(`| difference, ${mode} | ${ms(median(withLearn) - median(without))} | ${ms(percentile(withLearn, 95) - percentile(without, 95))} |`);
  }
  for (const { withModel, samples, stats } of r.lookups) {
    console.log(`| learned-evidence lookup alone${withModel ? ' (with model vectors, hybrid)' : ''} (${stats.examples.toLocaleString('en')} examples) | ${ms(median(samples))} | ${ms(percentile(samples, 95))} |`);
  }
  console.log('\n| examples | vectors | bytes (index estimate) | RSS growth |');
  console.log('|---:|---|---:|---:|');
  for (const { withModel, rssMB, stats } of r.memory) {
    console.log(`| ${stats.examples.toLocaleString('en')} | ${withModel ? 'int8' : 'none'} | ${(stats.bytes / 2 ** 20).toFixed(1)} MB | ${rssMB.toFixed(1)} MB |`);
  }
}

if (process.argv[1] === new URL(import.meta.url).pathname) {
  printLearnCost(await run({ quick: process.argv.includes('--quick') }));
}
