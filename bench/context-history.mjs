// What a step costs in storage 'context' as the conversation grows: with preload on, every earlier
// user message's preloads are derived again at each step (the conversation is the only state).
// Per step, in ms (the median of 5 steps after the first, which derives every message once), at
// 300, 1,000 and 3,000 messages (half of them the user's): ours in 'enhanced' mode, ours in 'hybrid'
// with a user's embedder answering in 20 ms, and @mastra/core's ToolSearchProcessor (no preload:
// it reads its load_tool results back from the messages).
//
//   npm run build && node bench/context-history.mjs
import { MessageList } from '@mastra/core/agent';
import { ToolSearchProcessor as Reference } from '@mastra/core/processors';
import { RequestContext } from '@mastra/core/request-context';
import { createTool } from '@mastra/core/tools';
import { ToolSearchProcessor } from '../index.js';
import { hybridModelOption, median, readJsonl } from './util.mjs';

const EMBED_MS = 20;

/** An embedding model whose every call takes EMBED_MS; `calls` counts them. */
function slowEmbedder() {
  const counter = { calls: 0 };
  const model = {
    specificationVersion: 'v2',
    provider: 'bench',
    modelId: 'slow',
    maxEmbeddingsPerCall: 2048,
    supportsParallelCalls: true,
    async doEmbed({ values }) {
      counter.calls++;
      await new Promise((resolve) => setTimeout(resolve, EMBED_MS));
      return { embeddings: values.map((v) => Array.from({ length: 16 }, (_, i) => 1 + ((v.charCodeAt(i % v.length) * (i + 1)) % 13))) };
    },
  };
  return { model, counter };
}

function conversation(queries, n) {
  const messages = [];
  for (let i = 0; messages.length < n; i++) {
    messages.push({ role: 'user', content: queries[i % queries.length] });
    messages.push({ role: 'assistant', content: `Done (${i}).` });
  }
  return messages;
}

async function perStep(processor, messages) {
  const requestContext = new RequestContext();
  requestContext.set('mastra__threadId', 'history');
  const step = (stepNumber) =>
    processor.processInputStep({ tools: {}, messageList: new MessageList({ threadId: 'history', resourceId: 'r' }), requestContext, messages, stepNumber });
  await step(0);
  const times = [];
  for (let i = 1; i <= 5; i++) {
    const t0 = performance.now();
    await step(i);
    times.push(performance.now() - t0);
  }
  return median(times);
}

export async function run() {
  const tools = Object.fromEntries(readJsonl('metatool', 'tools.jsonl').map(({ id, description }) => [id, createTool({ id, description, execute: async () => ({}) })]));
  const queries = readJsonl('metatool', 'queries.jsonl').filter((_, i) => i % 2 === 1).map((q) => q.query);
  const rows = [];
  for (const n of [300, 1000, 3000]) {
    const messages = conversation(queries, n);
    const reference = new Reference({ tools });
    const enhanced = new ToolSearchProcessor({ tools, storage: 'context', search: { mode: 'enhanced' }, preload: true });
    const { model, counter } = slowEmbedder();
    const hybrid = hybridModelOption()
      ? new ToolSearchProcessor({ tools, storage: 'context', search: { mode: 'hybrid', ...hybridModelOption(), embedder: model }, preload: true })
      : undefined;
    const row = { messages: n, reference: await perStep(reference, messages), enhanced: await perStep(enhanced, messages) };
    if (hybrid) {
      await perStep(hybrid, messages); // the catalog's vectors and every message's first derivation
      const before = counter.calls;
      row.hybridEmbedder = await perStep(hybrid, messages);
      row.embedderCallsPerStep = (counter.calls - before) / 6;
      hybrid.dispose();
    }
    enhanced.dispose();
    rows.push(row);
  }
  return rows;
}

export function printTable(rows) {
  console.log('\nStorage "context" with preload: ms per step as the conversation grows (median of 5 steps)');
  console.log(`| messages | @mastra/core 1.59 | ours, enhanced + preload | ours, hybrid + ${EMBED_MS} ms embedder + preload | embedder calls per step |`);
  console.log('|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    console.log(`| ${r.messages} | ${r.reference.toFixed(2)} | ${r.enhanced.toFixed(2)} | ${r.hybridEmbedder?.toFixed(2) ?? '—'} | ${r.embedderCallsPerStep ?? '—'} |`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) printTable(await run());
