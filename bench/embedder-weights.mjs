// Choosing the fusion's semantic weights for a user's embedder (js/embedder.js EMBEDDER_WEIGHTS),
// on development halves only: MetaTool's even lines and the multilingual set's dev split, with a
// real encoder (bench/local-encoder: all-MiniLM-L6-v2). Prints recall@1/@5 per weight.
//
//   node bench/embedder-weights.mjs [--latin 0.5,1,2] [--cjk 0.15]
import { createRequire } from 'node:module';
import { MessageList } from '@mastra/core/agent';
import { RequestContext } from '@mastra/core/request-context';
import { createTool } from '@mastra/core/tools';
import { ToolSearchProcessor } from '../index.js';
import { localEncoder } from './local-encoder/index.mjs';
import { hybridModelOption, readJsonl } from './util.mjs';

const option = (name, fallback) => (process.argv.includes(`--${name}`) ? process.argv[process.argv.indexOf(`--${name}`) + 1] : fallback);
const latins = option('latin', '0.5,0.75,1,1.5,2,3').split(',').map(Number);
const cjks = option('cjk', '0.15').split(',').map(Number);
const embedderModule = createRequire(import.meta.url)('../js/embedder.js');

const encoder = await localEncoder();
if (!encoder || !hybridModelOption()) throw new Error('needs the local encoder and the hybrid model');
const sets = [
  ['MetaTool even lines', readJsonl('metatool', 'tools.jsonl'), readJsonl('metatool', 'queries.jsonl').filter((_, i) => i % 2 === 0)],
  ['multilingual dev, en', readJsonl('multilingual', 'tools.jsonl'), readJsonl('multilingual', 'queries.jsonl').filter((q) => q.split === 'dev' && q.lang === 'en')],
  ['multilingual dev, CJK', readJsonl('multilingual', 'tools.jsonl'), readJsonl('multilingual', 'queries.jsonl').filter((q) => q.split === 'dev' && q.lang !== 'en')],
];
for (const [, , qs] of sets) await encoder.warm(qs.map((q) => q.query));

console.log('| set | latin | cjk | recall@1 | recall@5 |\n|---|---:|---:|---:|---:|');
for (const [name, catalog, queries] of sets) {
  const tools = Object.fromEntries(catalog.map(({ id, description }) => [id, createTool({ id, description, execute: async () => ({}) })]));
  for (const latin of latins) {
    for (const cjk of cjks) {
      embedderModule.EMBEDDER_WEIGHTS[0] = latin;
      embedderModule.EMBEDDER_WEIGHTS[1] = cjk;
      const p = new ToolSearchProcessor({ tools, search: { topK: 10, mode: 'hybrid', ...hybridModelOption(), embedder: encoder.model, embedderTimeoutMs: 60_000 } });
      const step = await p.processInputStep({ tools: {}, messageList: new MessageList({ threadId: 't', resourceId: 'r' }), requestContext: new RequestContext(), messages: [], stepNumber: 0 });
      let r1 = 0;
      let r5 = 0;
      for (const { query, relevant } of queries) {
        const names = (await step.tools.search_tools.execute({ query }, {})).results.map((r) => r.name);
        const rel = new Set(relevant);
        r1 += names.slice(0, 1).filter((n) => rel.has(n)).length / rel.size;
        r5 += names.slice(0, 5).filter((n) => rel.has(n)).length / rel.size;
      }
      console.log(`| ${name} | ${latin} | ${cjk} | ${(r1 / queries.length).toFixed(4)} | ${(r5 / queries.length).toFixed(4)} |`);
      p.dispose();
    }
  }
}
encoder.close();
