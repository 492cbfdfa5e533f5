// Choosing the fusion's semantic weights for a user's embedder (js/embedder.js EMBEDDER_WEIGHTS),
// on development halves only: MetaTool's even lines and the multilingual set's dev split, with a
// real encoder (bench/local-encoder: all-MiniLM-L6-v2, or `--encoder e5` for the multilingual
// multilingual-e5-small, which is how the CJK weight was chosen). Prints recall@1/@5 per weight;
// `--sets` picks sets by index (0 MetaTool even, 1 multilingual dev en, 2 multilingual dev CJK;
// 3 and 4: the multilingual dev CJK requests for a tool in their language / in another; 5 and 6:
// the English ones).
//
//   node bench/embedder-weights.mjs [--latin 0.5,1,2] [--cjk 0.15,1] [--same 0,0.15] [--crowding 0,0.5] [--span 0,0.3] [--encoder e5] [--sets 1,2]
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
const sames = option('same', '0').split(',').map(Number);
const crowdings = option('crowding', '0.5').split(',').map(Number);
const spans = option('span', '0').split(',').map(Number);
const embedderModule = createRequire(import.meta.url)('../js/embedder.js');

const encoder = await localEncoder(option('encoder', 'minilm'));
if (!encoder || !hybridModelOption()) throw new Error('needs the local encoder and the hybrid model');
const sets = [
  ['MetaTool even lines', readJsonl('metatool', 'tools.jsonl'), readJsonl('metatool', 'queries.jsonl').filter((_, i) => i % 2 === 0)],
  ['multilingual dev, en', readJsonl('multilingual', 'tools.jsonl'), readJsonl('multilingual', 'queries.jsonl').filter((q) => q.split === 'dev' && q.lang === 'en')],
  ['multilingual dev, CJK', readJsonl('multilingual', 'tools.jsonl'), readJsonl('multilingual', 'queries.jsonl').filter((q) => q.split === 'dev' && q.lang !== 'en')],
];
// Same-language / cross-language CJK requests: a relevant tool described in the request's language or not.
const toolLang = new Map(readJsonl('multilingual', 'tools.jsonl').map((t) => [t.id, t.lang]));
const sameLanguage = (q) => q.relevant.some((id) => toolLang.get(id) === q.lang);
sets.push(['multilingual dev, CJK same-language', sets[2][1], sets[2][2].filter(sameLanguage)]);
sets.push(['multilingual dev, CJK cross-language', sets[2][1], sets[2][2].filter((q) => !sameLanguage(q))]);
sets.push(['multilingual dev, en same-language', sets[1][1], sets[1][2].filter(sameLanguage)]);
sets.push(['multilingual dev, en cross-language', sets[1][1], sets[1][2].filter((q) => !sameLanguage(q))]);
const chosen = option('sets', '0,1,2').split(',').map(Number);
sets.splice(0, sets.length, ...sets.filter((_, i) => chosen.includes(i)));
for (const [, , qs] of sets) await encoder.warm(qs.map((q) => q.query));

console.log('| set | latin | cjk | same script | crowding | same script (span) | recall@1 | recall@5 |\n|---|---:|---:|---:|---:|---:|---:|---:|');
for (const [name, catalog, queries] of sets) {
  const tools = Object.fromEntries(catalog.map(({ id, description }) => [id, createTool({ id, description, execute: async () => ({}) })]));
  for (const latin of latins) {
    for (const [cjk, same, crowding, span] of cjks.flatMap((c) => sames.flatMap((s) => crowdings.flatMap((w) => spans.map((x) => [c, s, w, x]))))) {
      embedderModule.EMBEDDER_WEIGHTS.splice(0, 5, latin, cjk, same, crowding, span);
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
      console.log(`| ${name} | ${latin} | ${cjk} | ${same} | ${crowding} | ${span} | ${(r1 / queries.length).toFixed(4)} | ${(r5 / queries.length).toFixed(4)} |`);
      p.dispose();
    }
  }
}
encoder.close();
