// ToolSearchProcessor benchmark: @mastra/core 1.59.0 and ours side by side in one process.
// Run with the release build: `npm run bench` (or `npm run build && node bench/tool-search.mjs`).
import { createTool } from '@mastra/core/tools';
import { MessageList } from '@mastra/core/agent';
import { RequestContext } from '@mastra/core/request-context';
import { ToolSearchProcessor as Reference } from '@mastra/core/processors';
import { ToolSearchProcessor as Native } from '../index.mjs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median, percentile, printTable, settle, time, rng } from './util.mjs';
import * as realistic from './tool-search-realistic.mjs';

const VOCAB = (
  'get set create update delete list search find send read write fetch sync export import schedule cancel ' +
  'user account invoice payment order customer ticket issue pull request repository branch commit file folder ' +
  'document image video audio email message channel calendar event meeting weather forecast location map route ' +
  'flight hotel booking price stock market report chart table database query index cache queue job task project ' +
  'team member role permission token secret key log metric alert incident deploy build test release version'
).split(' ');

/** A synthetic catalog: unique ids, ~14-word descriptions drawn from a shared vocabulary. */
export function syntheticTools(n, seed = 1, prefix = 'tool') {
  const r = rng(seed);
  const pick = () => VOCAB[Math.floor(r() * VOCAB.length)];
  const tools = {};
  for (let i = 0; i < n; i++) {
    const id = `${prefix}_${pick()}_${pick()}_${i}`;
    const description = Array.from({ length: 12 }, pick).join(' ');
    tools[id] = createTool({ id, description, execute: async () => ({ id }) });
  }
  return tools;
}

function queries(n, seed = 2) {
  const r = rng(seed);
  const pick = () => VOCAB[Math.floor(r() * VOCAB.length)];
  return Array.from({ length: n }, () => Array.from({ length: 2 + Math.floor(r() * 3) }, pick).join(' '));
}

function stepArgs(tools = {}, threadId = 'bench') {
  const requestContext = new RequestContext();
  requestContext.set('mastra__threadId', threadId);
  return { tools, messageList: new MessageList({ threadId, resourceId: 'r' }), requestContext, messages: [], stepNumber: 0 };
}

async function searchP50(P, tools, qs, options = {}) {
  const p = new P({ tools, ...options });
  const { tools: t } = await p.processInputStep(stepArgs());
  for (const q of qs.slice(0, 5)) await t.search_tools.execute({ query: q }, {}); // warm up
  const samples = [];
  for (const q of qs) samples.push(await time(() => t.search_tools.execute({ query: q }, {})));
  p.dispose?.();
  return { p50: median(samples), p95: percentile(samples, 95) };
}

export async function run({ quick = false } = {}) {
  const rows = [];

  // 10,000 tools: construction (until the first step runs) and search.
  const n = 10_000;
  const tools10k = syntheticTools(n);
  await realistic.constructAndFirstStepMs(Native, tools10k, 2);
  const refCtor = await realistic.constructAndFirstStepMs(Reference, tools10k, quick ? 1 : 3);
  const ourCtor = await realistic.constructAndFirstStepMs(Native, tools10k, quick ? 3 : 7);
  rows.push({ name: 'construct + first step, 10,000 tools', reference_ms: refCtor, native_ms: ourCtor, ratio: refCtor / ourCtor });

  const qs = queries(quick ? 40 : 200);
  const refSearch = await searchP50(Reference, tools10k, qs.slice(0, quick ? 20 : 60));
  const ourSearch = await searchP50(Native, tools10k, qs);
  rows.push({ name: 'search_tools p50, 10,000 tools', reference_ms: refSearch.p50, native_ms: ourSearch.p50, ratio: refSearch.p50 / ourSearch.p50 });

  // Enhanced mode (issue 5): search within 2× of compatible, and its build time.
  const ourEnhanced = await searchP50(Native, tools10k, qs, { search: { mode: 'enhanced' } });
  rows.push({
    name: "search_tools p50, 10,000 tools, mode 'enhanced'",
    reference_ms: refSearch.p50,
    native_ms: ourEnhanced.p50,
    ratio: refSearch.p50 / ourEnhanced.p50,
  });
  const enhancedCtor = await realistic.constructAndFirstStepMs(Native, tools10k, quick ? 3 : 5, { search: { mode: 'enhanced' } });
  rows.push({ name: "construct + first step, 10,000 tools, mode 'enhanced'", reference_ms: refCtor, native_ms: enhancedCtor, ratio: refCtor / enhancedCtor });

  const filter = ({ toolName }) => toolName.length % 2 === 0;
  const refFiltered = await searchP50(Reference, tools10k, qs.slice(0, 10), { filter });
  const ourFiltered = await searchP50(Native, tools10k, qs.slice(0, 60), { filter });
  rows.push({
    name: 'search_tools p50 with a filter, 10,000 tools',
    reference_ms: refFiltered.p50,
    native_ms: ourFiltered.p50,
    ratio: refFiltered.p50 / ourFiltered.p50,
  });

  // includeResolvedTools: 2,000 tools resolved per request (fresh instances each request).
  const staticTools = syntheticTools(200, 3, 'static');
  const resolvedSets = Array.from({ length: 4 }, () => syntheticTools(2000, 4, 'mcp'));
  for (const [label, withSearch] of [
    ['step, includeResolvedTools, 2,000 resolved', false],
    ['step + search, includeResolvedTools, 2,000 resolved', true],
  ]) {
    const result = {};
    for (const [name, P] of [
      ['reference', Reference],
      ['native', Native],
    ]) {
      const p = new P({ tools: staticTools, includeResolvedTools: true });
      const samples = [];
      const steps = quick ? 10 : 30;
      for (let i = 0; i < steps + 3; i++) {
        const ms = await time(async () => {
          const { tools: t } = await p.processInputStep(stepArgs(resolvedSets[i % resolvedSets.length]));
          if (withSearch) await t.search_tools.execute({ query: 'create issue repository' }, {});
        });
        if (i >= 3) samples.push(ms);
      }
      result[name] = median(samples);
      p.dispose?.();
    }
    rows.push({ name: label, reference_ms: result.reference, native_ms: result.native, ratio: result.reference / result.native });
  }

  // 100,000 tools: ours only (the reference's O(N²) build takes minutes here). Measured in a
  // fresh child process so the RSS figure is not blurred by the runs above.
  if (!quick) {
    const child = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--100k'], { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(`100k benchmark failed: ${child.stderr}`);
    const r = JSON.parse(child.stdout.trim().split('\n').pop());
    rows.push({ name: 'construct + first step, 100,000 tools (native only)', reference_ms: NaN, native_ms: r.constructMs, ratio: NaN });
    rows.push({ name: 'search_tools p50, 100,000 tools (native only)', reference_ms: NaN, native_ms: r.searchP50, ratio: NaN });
    rows.push({ name: 'RSS added by a 100,000-tool processor (MB)', reference_ms: NaN, native_ms: r.rssMB, ratio: NaN, unit: 'MB' });
  }
  // Realistic catalogs (MetaTool descriptions replicated with varied text, real queries) and
  // the floor rows, next to the synthetic ones.
  rows.push(...(await realistic.run({ quick })));
  return rows;
}

/** The 100,000-tool measurement, run in its own process. */
async function hundredThousand() {
  const tools100k = syntheticTools(100_000, 5);
  await settle();
  const rssBefore = process.memoryUsage().rss;
  const t0 = performance.now();
  const p = new Native({ tools: tools100k });
  const { tools: t } = await p.processInputStep(stepArgs());
  const constructMs = performance.now() - t0;
  await settle();
  const rssMB = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
  const samples = [];
  for (const q of queries(300, 9)) samples.push(await time(() => t.search_tools.execute({ query: q }, {})));
  p.dispose();
  return { constructMs, searchP50: median(samples), rssMB };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes('--100k')) {
    console.log(JSON.stringify(await hundredThousand()));
  } else {
    const rows = await run({ quick: process.argv.includes('--quick') });
    printTable('ToolSearchProcessor', rows);
  }
}
