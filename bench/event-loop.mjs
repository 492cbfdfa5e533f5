// Event-loop delay while a ToolSearchProcessor is constructed and answers its first search
// (perf_hooks.monitorEventLoopDelay, 1 ms resolution): what a server serving other requests
// meanwhile would see. Large catalogs are indexed on a libuv pool thread; the "inline" rows
// force the previous, synchronous build for comparison (bench-only: not an option), and the
// @mastra/core 1.59.0 row is the host's own processor. Each row runs in a fresh process.
//
// The window starts right before `new ToolSearchProcessor(...)` (after the histogram's first
// tick, which only starts its clock) and ends when the first
// search_tools result is back. The constructor still reads every tool and validates the
// names on the JS thread (it must throw synchronously on ambiguous catalogs, as the host's
// does); that block is the `max` column and the "constructor" time.
//
//   npm run build && node bench/event-loop.mjs [--quick]
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { availableParallelism, loadavg } from 'node:os';
import { MessageList } from '@mastra/core/agent';
import { RequestContext } from '@mastra/core/request-context';
import { ToolSearchProcessor as Reference } from '@mastra/core/processors';
import { ToolSearchProcessor as Native } from '../index.mjs';
import { realisticTools, metatoolQueries } from './tool-search-realistic.mjs';

const require = createRequire(import.meta.url);

/** Makes the processor build inline, as every catalog did before off-thread builds. */
function forceInlineBuild() {
  const native = require('../js/native.js');
  const Catalog = native.NativeToolCatalog;
  native.NativeToolCatalog = new Proxy(function InlineCatalog() {}, {
    get(_, prop) {
      if (prop === 'buildAsync') {
        return (source, options, model) => Catalog.build(source, options, model);
      }
      const value = Reflect.get(Catalog, prop);
      return typeof value === 'function' ? value.bind(Catalog) : value;
    },
    construct: (_, args) => Reflect.construct(Catalog, args),
  });
}

function stepArgs() {
  const requestContext = new RequestContext();
  requestContext.set('mastra__threadId', 'bench');
  return { tools: {}, messageList: new MessageList({ threadId: 'bench', resourceId: 'r' }), requestContext, messages: [], stepNumber: 0 };
}

/** One measurement in this process: `{ p50, p99, max, samples, constructMs, firstResultMs, hits }`. */
async function measure(n, build, mode) {
  const tools = realisticTools(n);
  const query = metatoolQueries()[0];
  if (build === 'inline') forceInlineBuild();
  const P = build === 'reference' ? Reference : Native;
  const options = mode === 'enhanced' ? { search: { mode: 'enhanced' } } : {};
  // Settle the loop (module loading, the generated tools) before measuring.
  await new Promise((r) => setTimeout(r, 50));
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  // The histogram's first tick only starts its clock: a block before it would go unrecorded.
  while (histogram.count < 1) await new Promise((r) => setTimeout(r, 1));
  const t0 = performance.now();
  const p = new P({ tools, ...options });
  const constructMs = performance.now() - t0;
  const { tools: offered } = await p.processInputStep(stepArgs());
  const { results } = await offered.search_tools.execute({ query }, {});
  const firstResultMs = performance.now() - t0;
  // One more tick, so a block that ran to the end without yielding is recorded too.
  await new Promise((r) => setTimeout(r, 1));
  histogram.disable();
  p.dispose?.();
  const ms = (ns) => ns / 1e6;
  return {
    p50: ms(histogram.percentile(50)),
    p99: ms(histogram.percentile(99)),
    max: ms(histogram.max),
    samples: histogram.count,
    constructMs,
    firstResultMs,
    hits: results.length,
  };
}

const ROWS = [
  [10_000, 'off-thread', 'compatible'],
  [10_000, 'inline', 'compatible'],
  [10_000, 'reference', 'compatible'],
  [100_000, 'off-thread', 'compatible'],
  [100_000, 'inline', 'compatible'],
  [100_000, 'off-thread', 'enhanced'],
  [100_000, 'inline', 'enhanced'],
];

/** Every row (the median-p99 run of `runs` fresh processes each). */
export async function run({ quick = false } = {}) {
  const runs = quick ? 1 : 3;
  const rows = [];
  for (const [n, build, mode] of ROWS) {
    const samples = [];
    for (let i = 0; i < runs; i++) {
      const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', String(n), build, mode], { encoding: 'utf8' });
      if (child.status !== 0) throw new Error(`event-loop benchmark (${n}, ${build}, ${mode}) failed: ${child.stderr}`);
      samples.push(JSON.parse(child.stdout.trim().split('\n').pop()));
    }
    samples.sort((a, b) => a.p99 - b.p99);
    rows.push({ n, build, mode, ...samples[Math.floor(samples.length / 2)] });
  }
  return rows;
}

export function printEventLoopTable(rows) {
  const f = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
  console.log('\n### Event-loop delay while constructing and running the first search (monitorEventLoopDelay, 1 ms resolution)\n');
  // Delays grow with whatever else the machine runs: say how busy it was.
  console.log(`load average ${loadavg().map((x) => x.toFixed(1)).join(' / ')} on ${availableParallelism()} cores\n`);
  console.log('| catalog | build | delay p50 | delay p99 | delay max | constructor | first result | samples |');
  console.log('|---|---|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    const build = r.build === 'reference' ? '@mastra/core 1.59.0' : r.build;
    const catalog = `${r.n.toLocaleString('en')} realistic tools${r.mode === 'enhanced' ? ", mode 'enhanced'" : ''}`;
    console.log(`| ${catalog} | ${build} | ${f(r.p50)} ms | ${f(r.p99)} ms | ${f(r.max)} ms | ${f(r.constructMs)} ms | ${f(r.firstResultMs)} ms | ${r.samples} |`);
  }
}

/** Runs and prints (the `npm run bench` hook). */
export async function report(options) {
  printEventLoopTable(await run(options));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = process.argv.indexOf('--child');
  if (at >= 0) {
    const [n, build, mode] = process.argv.slice(at + 1);
    console.log(JSON.stringify(await measure(Number(n), build, mode)));
  } else {
    await report({ quick: process.argv.includes('--quick') });
  }
}
