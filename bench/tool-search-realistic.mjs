// ToolSearchProcessor on realistic catalogs: the MetaTool (ToolE) tool descriptions in
// data/metatool/, replicated with varied text to 10,000 and 100,000 tools, searched with the
// set's real user queries (with their stopwords). @mastra/core 1.59.0 and ours in one process,
// plus the "floor" rows: what reading every tool's strings and the meta-tool execute wrapper
// alone cost in plain JavaScript.
//
// The catalogs are generated at bench time (nothing large is committed) by the same steps
// and PRNG as crates/core/examples/support/metatool.rs, so `cargo run --release --example
// pruning_diff` checks pruned == exhaustive on exactly these tools.
//
//   npm run build && node --expose-gc bench/tool-search-realistic.mjs [--quick]
import { createTool } from '@mastra/core/tools';
import { MessageList } from '@mastra/core/agent';
import { RequestContext } from '@mastra/core/request-context';
import { ToolSearchProcessor as Reference } from '@mastra/core/processors';
import { z } from 'zod';
import { ToolSearchProcessor as Native } from '../index.mjs';
import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { median, percentile, printTable, settle, time, rng } from './util.mjs';

const DATA = new URL('../data/metatool/', import.meta.url);
const jsonl = (name) =>
  readFileSync(new URL(name, DATA), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));

export const baseTools = () => jsonl('tools.jsonl').map((t) => ({ id: t.id, description: t.description ?? '' }));
export const metatoolQueries = () => jsonl('queries.jsonl').map((q) => q.query);

const TAGS = ['eu', 'us', 'apac', 'v2', 'pro', 'lite', 'beta', 'mirror', 'dev', 'staging', 'sandbox', 'internal', 'partner', 'legacy', 'next', 'edge'];
const QUALIFIERS = ['Official', 'Community', 'Lite', 'Pro', 'Enterprise', 'Beta', 'Legacy', 'Regional', 'Open-source', 'Experimental'];
const TAILS = [
  'Works with Slack and email.',
  'Supports CSV and PDF export.',
  'Available in English and Spanish.',
  'Requires an API key.',
  'Free tier available.',
  'Updated daily.',
  'For teams and enterprises.',
  'Includes usage analytics.',
  'Runs in the EU region.',
  'Rate limited to 60 requests per minute.',
  'Read-only access.',
  'Sandbox data only.',
  'Maintained by the community.',
  'Syncs with Google Drive.',
  'Mobile friendly.',
  'Beta: results may vary.',
];
const SYNONYMS = new Map([
  ['get', 'fetch'], ['find', 'search for'], ['search', 'look up'], ['create', 'make'], ['generate', 'produce'],
  ['information', 'info'], ['data', 'details'], ['help', 'assist'], ['quickly', 'fast'], ['easily', 'simply'],
  ['best', 'top'], ['online', 'on the web'], ['your', "the user's"], ['plan', 'organize'], ['explore', 'browse'],
  ['discover', 'find'], ['personalized', 'tailored'], ['latest', 'newest'], ['news', 'headlines'], ['recipes', 'dishes'],
  ['travel', 'trips'], ['products', 'items'], ['shop', 'buy'], ['learn', 'study'], ['music', 'songs'],
  ['movies', 'films'], ['jobs', 'positions'], ['free', 'no-cost'], ['real-time', 'live'], ['and', '&'],
]);

/**
 * `n` {id, description}: the base tools, then copies with an id tag and, by chance, a dropped
 * word, synonyms, a qualifier, a boilerplate tail and a phrase borrowed from another tool.
 */
export function replicate(base, n, seed = 42) {
  const r = rng(seed);
  const below = (k) => Math.floor(r() * k);
  const out = [];
  for (let j = 0; j < n; j++) {
    const b = base[j % base.length];
    const copy = Math.floor(j / base.length);
    if (copy === 0) {
      out.push(b);
      continue;
    }
    const id = `${b.id}_${TAGS[copy % TAGS.length]}${Math.floor(copy / TAGS.length)}`;
    const words = b.description.split(' ');
    if (words.length > 3 && r() < 0.25) words.splice(below(words.length), 1);
    for (let i = 0; i < words.length; i++) {
      const to = SYNONYMS.get(words[i].toLowerCase());
      if (to !== undefined && r() < 0.3) words[i] = to;
    }
    let description = '';
    if (r() < 0.3) description += QUALIFIERS[below(QUALIFIERS.length)] + ': ';
    description += words.join(' ');
    if (r() < 0.6) description += ' ' + TAILS[below(TAILS.length)];
    if (r() < 0.35) {
      const other = base[below(base.length)].description.split(' ');
      const span = 3 + below(4);
      const start = below(Math.max(other.length - span, 1));
      description += ' Similar to: ' + other.slice(start, Math.min(start + span, other.length)).join(' ');
    }
    out.push({ id, description });
  }
  return out;
}

/** The replicated catalog as Mastra tools, keyed by id. */
export function realisticTools(n, seed = 42) {
  const tools = {};
  for (const { id, description } of replicate(baseTools(), n, seed)) {
    tools[id] = createTool({ id, description, execute: async () => ({ id }) });
  }
  return tools;
}

/**
 * `search` for mode 'hybrid': the installed model package, else the repo's
 * packages/model-multilingual; undefined when neither has a model.bin (rows are skipped).
 */
function hybridSearch() {
  const repoModel = fileURLToPath(new URL('../packages/model-multilingual/', import.meta.url));
  try {
    const require = createRequire(import.meta.url);
    require.resolve('mastra-native-processors-model-multilingual');
    return { mode: 'hybrid' };
  } catch {
    return existsSync(repoModel + 'model.bin') ? { mode: 'hybrid', model: repoModel } : undefined;
  }
}

/** Construction including the (possibly off-thread) build: until the first step returns. */
export async function constructAndFirstStepMs(P, tools, runs, options = {}) {
  const samples = [];
  for (let i = 0; i < runs; i++) {
    global.gc?.();
    const t0 = performance.now();
    const p = new P({ tools, ...options });
    await p.processInputStep(stepArgs());
    samples.push(performance.now() - t0);
    p.dispose?.();
  }
  return median(samples);
}

/** Every `stride`-th MetaTool query, starting at `offset`. */
function sampleQueries(count, offset = 0) {
  const all = metatoolQueries();
  const stride = Math.max(1, Math.floor(all.length / count));
  return Array.from({ length: count }, (_, i) => all[(offset + i * stride) % all.length]);
}

function stepArgs(tools = {}, threadId = 'bench') {
  const requestContext = new RequestContext();
  requestContext.set('mastra__threadId', threadId);
  return { tools, messageList: new MessageList({ threadId, resourceId: 'r' }), requestContext, messages: [], stepNumber: 0 };
}

/**
 * Warms a search tool up the same way for each side: calls on other MetaTool queries than the
 * measured ones, until `WARM_UP_CALLS` calls or `WARM_UP_MS` have passed, whichever is first.
 * Mastra's execute wrapper (zod validation) alone takes thousands of calls in a process to
 * reach its steady speed (with five results: 4.8 µs after 20 calls, 2.8 µs after 4,000; the
 * JIT's work is per process, so later tools start warm); the reference's searches are slow
 * enough that 2 s is already over a hundred calls.
 */
const WARM_UP_CALLS = 4000;
const WARM_UP_MS = 2000;
async function warmUp(execute) {
  const t0 = performance.now();
  // (lines 3, 8, 13, …: the measured samples take lines 0 or 1 modulo 10)
  const qs = sampleQueries(WARM_UP_CALLS, 3);
  for (let i = 0; i < qs.length && performance.now() - t0 < WARM_UP_MS; i++) await execute(qs[i]);
}

async function searchP50(P, tools, qs, options = {}) {
  const p = new P({ tools, ...options });
  const { tools: t } = await p.processInputStep(stepArgs());
  await warmUp((q) => t.search_tools.execute({ query: q }, {}));
  const samples = [];
  for (const q of qs) samples.push(await time(() => t.search_tools.execute({ query: q }, {})));
  p.dispose?.();
  return { p50: median(samples), p95: percentile(samples, 95) };
}

/**
 * p50 of a first step (processInputStep) with the request as its user message, each on its own
 * thread; with `preload` on and off, the difference is what preloading costs a step.
 */
async function firstStepP50(P, tools, qs, options = {}) {
  const p = new P({ tools, ...options });
  const step = (q, i) => p.processInputStep({ ...stepArgs({}, `pre-${i}`), messages: [{ role: 'user', content: q }] });
  // (warm-up texts differ from the measured ones: preload remembers a text's ranking per
  // catalog, and a new user message is what a first step pays for)
  for (let i = 0; i < 300; i++) await step(`${qs[i % qs.length]} (warm-up ${i})`, -i - 1);
  const samples = [];
  for (let i = 0; i < qs.length; i++) samples.push(await time(() => step(qs[i], i)));
  p.dispose?.();
  return median(samples);
}

/** Floor: reading every tool's id and description in plain JavaScript (no native call). */
function readFloorMs(tools, runs) {
  const samples = [];
  let sink = 0;
  for (let i = 0; i < runs; i++) {
    global.gc?.();
    const t0 = performance.now();
    const ids = [];
    const descriptions = [];
    for (const [key, tool] of Object.entries(tools)) {
      ids.push(typeof tool.id === 'string' ? tool.id : key);
      descriptions.push(typeof tool.description === 'string' ? tool.description : '');
    }
    sink += ids.length + descriptions.length;
    samples.push(performance.now() - t0);
  }
  if (sink < 0) console.log(sink);
  return median(samples);
}

/** Floor: a search_tools-shaped tool whose execute does nothing (Mastra's wrapper + schema). */
async function wrapperFloorP50(qs) {
  const tool = createTool({
    id: 'search_tools',
    description: 'floor',
    inputSchema: z.object({ query: z.string() }),
    outputSchema: z.object({ results: z.array(z.object({ name: z.string(), description: z.string(), score: z.number() })) }),
    execute: async () => ({ results: [] }),
  });
  await warmUp((q) => tool.execute({ query: q }, {}));
  const samples = [];
  for (const q of qs) samples.push(await time(() => tool.execute({ query: q }, {})));
  return median(samples);
}

export async function run({ quick = false } = {}) {
  const rows = [];
  const n = 10_000;
  const tools = realisticTools(n);
  const qs = sampleQueries(quick ? 300 : 2000);

  const readFloor = readFloorMs(tools, quick ? 3 : 7);
  rows.push({ name: 'floor: read id + description of 10,000 tools (plain JS)', reference_ms: NaN, native_ms: readFloor, ratio: NaN });
  const wrapper = await wrapperFloorP50(qs.slice(0, 500));
  rows.push({ name: 'floor: search_tools execute wrapper alone (no-op execute)', reference_ms: NaN, native_ms: wrapper, ratio: NaN });

  // Until the first step can run: a large catalog of ours builds off the event loop after
  // the constructor returns (bench/event-loop.mjs measures what the constructor blocks).
  await constructAndFirstStepMs(Native, tools, 2);
  const refCtor = await constructAndFirstStepMs(Reference, tools, quick ? 1 : 3);
  const ourCtor = await constructAndFirstStepMs(Native, tools, quick ? 5 : 11);
  rows.push({ name: 'construct + first step, 10,000 realistic tools', reference_ms: refCtor, native_ms: ourCtor, ratio: refCtor / ourCtor });
  const ourEnhancedCtor = await constructAndFirstStepMs(Native, tools, quick ? 3 : 7, { search: { mode: 'enhanced' } });
  rows.push({ name: "construct + first step, 10,000 realistic tools, mode 'enhanced'", reference_ms: refCtor, native_ms: ourEnhancedCtor, ratio: refCtor / ourEnhancedCtor });

  const ref = await searchP50(Reference, tools, qs.slice(0, quick ? 40 : 200));
  const ours = await searchP50(Native, tools, qs);
  rows.push({ name: 'search_tools p50, 10,000 realistic tools, MetaTool queries', reference_ms: ref.p50, native_ms: ours.p50, ratio: ref.p50 / ours.p50 });
  const enhanced = await searchP50(Native, tools, qs, { search: { mode: 'enhanced' } });
  rows.push({ name: "search_tools p50, 10,000 realistic tools, mode 'enhanced'", reference_ms: ref.p50, native_ms: enhanced.p50, ratio: ref.p50 / enhanced.p50 });
  rows.push({ name: 'search_tools p95, 10,000 realistic tools', reference_ms: ref.p95, native_ms: ours.p95, ratio: ref.p95 / ours.p95 });

  const hybrid = hybridSearch();
  if (hybrid) {
    // Model load time and RSS in a fresh process (the first load in this one would hide it).
    const child = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--hybrid-load'], { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(`hybrid load benchmark failed: ${child.stderr}`);
    const load = JSON.parse(child.stdout.trim().split('\n').pop());
    rows.push({ name: "hybrid: model load (first processor in a process)", reference_ms: NaN, native_ms: load.loadMs, ratio: NaN });
    rows.push({ name: 'hybrid: RSS added by the model (MB)', reference_ms: NaN, native_ms: load.modelMB, ratio: NaN, unit: 'MB' });
    rows.push({ name: 'hybrid: RSS added by a 10,000-tool hybrid processor (MB)', reference_ms: NaN, native_ms: load.catalogMB, ratio: NaN, unit: 'MB' });
    const runs = quick ? 3 : 7;
    const enhancedBuild = await constructAndFirstStepMs(Native, tools, runs, { search: { mode: 'enhanced' } });
    const hybridBuild = await constructAndFirstStepMs(Native, tools, runs, { search: hybrid });
    rows.push({ name: "construct + first step, 10,000 tools, mode 'enhanced'", reference_ms: NaN, native_ms: enhancedBuild, ratio: NaN });
    rows.push({ name: "construct + first step, 10,000 tools, mode 'hybrid' (vs enhanced)", reference_ms: enhancedBuild, native_ms: hybridBuild, ratio: enhancedBuild / hybridBuild });
    const h = await searchP50(Native, tools, qs, { search: hybrid });
    rows.push({ name: "search_tools p50, 10,000 realistic tools, mode 'hybrid'", reference_ms: ref.p50, native_ms: h.p50, ratio: ref.p50 / h.p50 });
    rows.push({ name: "search_tools p95, 10,000 realistic tools, mode 'hybrid'", reference_ms: ref.p95, native_ms: h.p95, ratio: ref.p95 / h.p95 });
    // What preload adds to a first step: its search, confidences and activation.
    const stepQs = qs.slice(0, quick ? 200 : 1000);
    const plainStep = await firstStepP50(Native, tools, stepQs, { search: hybrid });
    const preloadStep = await firstStepP50(Native, tools, stepQs, { search: hybrid, preload: true });
    rows.push({ name: "first step p50, 10,000 realistic tools, 'hybrid': preload's cost (vs the step without it)", reference_ms: plainStep, native_ms: preloadStep - plainStep, ratio: NaN });
  } else {
    console.log("(hybrid rows skipped: no model; npm install mastra-native-processors-model-multilingual)");
  }

  if (!quick) {
    const child = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--100k'], { encoding: 'utf8' });
    if (child.status !== 0) throw new Error(`100k benchmark failed: ${child.stderr}`);
    const r = JSON.parse(child.stdout.trim().split('\n').pop());
    rows.push({ name: 'floor: read id + description of 100,000 tools (plain JS)', reference_ms: NaN, native_ms: r.readFloor, ratio: NaN });
    rows.push({ name: 'construct + first step, 100,000 realistic tools (native only)', reference_ms: NaN, native_ms: r.constructMs, ratio: NaN });
    rows.push({ name: 'search_tools p50, 100,000 realistic tools (native only)', reference_ms: NaN, native_ms: r.searchP50, ratio: NaN });
    rows.push({ name: "search_tools p50, 100,000 realistic tools, mode 'enhanced' (native only)", reference_ms: NaN, native_ms: r.enhancedP50, ratio: NaN });
    rows.push({ name: 'RSS added by a 100,000-realistic-tool processor (MB)', reference_ms: NaN, native_ms: r.rssMB, ratio: NaN, unit: 'MB' });
  }
  return rows;
}

/** 100,000 tools, in a fresh process so the RSS figure is this processor's alone. */
async function hundredThousand() {
  const tools = realisticTools(100_000);
  const readFloor = readFloorMs(tools, 5);
  await settle();
  const rssBefore = process.memoryUsage().rss;
  const t0 = performance.now();
  const p = new Native({ tools });
  const { tools: t } = await p.processInputStep(stepArgs());
  const constructMs = performance.now() - t0;
  await settle();
  const rssMB = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
  const qs = sampleQueries(2000, 1);
  await warmUp((q) => t.search_tools.execute({ query: q }, {}));
  const samples = [];
  for (const q of qs) samples.push(await time(() => t.search_tools.execute({ query: q }, {})));
  p.dispose();
  // (the same queries as the compatible row, so the two p50s compare)
  const enhanced = await searchP50(Native, tools, qs, { search: { mode: 'enhanced' } });
  return { readFloor, constructMs, searchP50: median(samples), enhancedP50: enhanced.p50, rssMB };
}

/** Model load time and the RSS the model and a 10,000-tool hybrid catalog add. */
async function hybridLoad() {
  const search = hybridSearch();
  const { loadSemanticModel } = createRequire(import.meta.url)('../js/semantic.js');
  const tools = realisticTools(10_000);
  global.gc?.();
  const rss0 = process.memoryUsage().rss;
  const t0 = performance.now();
  loadSemanticModel(search.model, 'bench');
  const loadMs = performance.now() - t0;
  global.gc?.();
  const rss1 = process.memoryUsage().rss;
  const p = new Native({ tools, search });
  await p.processInputStep(stepArgs());
  global.gc?.();
  const rss2 = process.memoryUsage().rss;
  p.dispose();
  return { loadMs, modelMB: (rss1 - rss0) / 2 ** 20, catalogMB: (rss2 - rss1) / 2 ** 20 };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes('--hybrid-load')) {
    console.log(JSON.stringify(await hybridLoad()));
  } else if (process.argv.includes('--100k')) {
    console.log(JSON.stringify(await hundredThousand()));
  } else {
    const rows = await run({ quick: process.argv.includes('--quick') });
    printTable('ToolSearchProcessor, realistic catalogs (MetaTool descriptions and queries)', rows);
  }
}
