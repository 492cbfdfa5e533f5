// Where a `search_tools` call's time goes at 10,000 (or N) realistic tools, measured from JS:
//
//   full        search_tools.execute, as the realistic benchmark times it
//   JS only     the same calls with the native search replaced by its recorded results
//               (Mastra's execute wrapper, schema checks and our result objects)
//   native      the native search called in a tight loop (warm caches), and with a query
//               that matches nothing (the crossing alone)
//
// Each query is run once per pass; a first pass records the native results and warms up.
// The difference full − JS only − native is what the native search loses to caches cooled
// by the JS work between searches.
//
//   npm run build && node --expose-gc bench/search-breakdown.mjs [N] [compatible|enhanced]
import { MessageList } from '@mastra/core/agent';
import { RequestContext } from '@mastra/core/request-context';
import { ToolSearchProcessor } from '../index.mjs';
import native from '../binding.js';
import { realisticTools, metatoolQueries } from './tool-search-realistic.mjs';
import { median, time } from './util.mjs';

const n = Number(process.argv[2] ?? 10_000);
const mode = process.argv[3] ?? 'compatible';
const all = metatoolQueries();
const stride = Math.max(1, Math.floor(all.length / 2000));
const queries = Array.from({ length: 2000 }, (_, i) => all[(i * stride) % all.length]);

// Records each query's native result, replays it when asked, and remembers the catalog.
const proto = native.NativeToolCatalog.prototype;
const searchInto = proto.searchInto;
const recorded = new Map();
let replay = false;
let catalog;
proto.searchInto = function (query, topK, minScore, out) {
  catalog = this;
  if (replay) {
    const [count, hits] = recorded.get(query);
    out.set(hits);
    return count;
  }
  const count = searchInto.call(this, query, topK, minScore, out);
  recorded.set(query, [count, out.slice(0, 3 * count)]);
  return count;
};

const processor = new ToolSearchProcessor({ tools: realisticTools(n), search: { mode } });
const requestContext = new RequestContext();
requestContext.set('mastra__threadId', 'breakdown');
const { tools } = await processor.processInputStep({
  tools: {},
  messageList: new MessageList({ threadId: 'breakdown', resourceId: 'r' }),
  requestContext,
  messages: [],
  stepNumber: 0,
});
const execute = (query) => tools.search_tools.execute({ query }, {});
const us = (ms) => `${(ms * 1000).toFixed(1)} µs`;

const passes = async () => {
  const samples = [];
  for (const q of queries) samples.push(await time(() => execute(q)));
  return median(samples);
};
replay = false;
await passes(); // records the results; JIT warm-up
const full = await passes();
replay = true;
const jsOnly = await passes();
replay = false;

const out = new Float64Array(30);
const nativeLoop = (query) => {
  const samples = [];
  for (const q of queries) {
    const t0 = performance.now();
    searchInto.call(catalog, query ?? q, 5, 0, out);
    samples.push(performance.now() - t0);
  }
  return median(samples);
};
const nativeWarm = nativeLoop();
const crossing = nativeLoop('zzzzqqqq');
processor.dispose?.();

console.log(`${n} realistic tools, mode '${mode}', ${queries.length} MetaTool queries, p50:`);
console.log(`  search_tools.execute            ${us(full)}`);
console.log(`  JS only (native replayed)       ${us(jsOnly)}`);
console.log(`  native search, tight loop       ${us(nativeWarm)}`);
console.log(`  native crossing, no-match query ${us(crossing)}`);
console.log(`  caches cooled between searches  ${us(full - jsOnly - nativeWarm)}`);
