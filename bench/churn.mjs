// State churn: many short-lived threads through ToolSearchProcessor's in-memory store (the
// native NativeLoadedNameStore), each touched once and then left idle; a TTL sweep
// (`cleanupNow()`, what the store's cleanup timer calls) evicts them. Prints RSS, heap and
// `getStateStats()` every `--sample-every` threads as a markdown table (or JSON with `--json`).
//
//   node --expose-gc bench/churn.mjs                      # 1,000,000 threads, every one loads a tool
//   node --expose-gc bench/churn.mjs --full-every 10      # 9 of 10 threads only read (faster)
//   node --expose-gc bench/churn.mjs --threads 200000 --json
//
// A thread is "full" (by default every one; with `--full-every N` every N-th): one
// `processInputStep` for the thread, then its `load_tool` loads a tool (a native write); the
// thread then goes idle. The others take the cheapest public path that still reaches the native
// store, `getLoadedToolsForRequestContext` (a native read, which creates or touches the thread's
// entry exactly as a step does). 1,000,000 full threads take ~16 s on a 2-core machine.
// The sweep runs every `--sweep-every` threads, as the timer would between requests.
import { ToolSearchProcessor } from 'mastra-native-processors';
import { createTool } from '@mastra/core/tools';
import { RequestContext } from '@mastra/core/request-context';

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
}
const threads = option('threads', 1_000_000);
const sampleEvery = option('sample-every', 100_000);
const sweepEvery = option('sweep-every', 10_000);
const fullEvery = Math.max(1, option('full-every', 1));
const ttl = option('ttl', 1);
const json = process.argv.includes('--json');

if (typeof globalThis.gc !== 'function') {
  console.error('run with node --expose-gc');
  process.exit(2);
}

const tools = Object.fromEntries(
  Array.from({ length: 20 }, (_, i) => [
    `tool_${i}`,
    createTool({ id: `tool_${i}`, description: `Does thing number ${i} for the churn benchmark`, execute: async () => i }),
  ]),
);
const processor = new ToolSearchProcessor({ tools, ttl });
const messageList = { addSystem() {} };
const MB = 2 ** 20;
const threadId = (i) => `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
const idle = () => new Promise((resolve) => setTimeout(resolve, ttl + 2));

async function collect() {
  for (let i = 0; i < 3; i++) {
    globalThis.gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function memory() {
  const m = process.memoryUsage();
  return { rssMB: +(m.rss / MB).toFixed(1), heapUsedMB: +(m.heapUsed / MB).toFixed(1), externalMB: +(m.external / MB).toFixed(1) };
}

const started = Date.now();
await collect();
const samples = [{ threads: 0, liveBeforeSweep: 0, evicted: 0, ...processor.getStateStats(), ...memory(), ms: 0 }];
let evictedTotal = 0;
let loads = 0;

for (let i = 1; i <= threads; i++) {
  const requestContext = new RequestContext();
  requestContext.set('mastra__threadId', threadId(i));
  if (i % fullEvery === 0) {
    const step = await processor.processInputStep({ tools: {}, messageList, requestContext, messages: [], stepNumber: 0 });
    const loaded = await step.tools.load_tool.execute({ toolName: `tool_${i % 20}` }, {});
    if (!loaded.success) throw new Error(`load_tool failed: ${loaded.message}`);
    loads++;
  } else {
    await processor.getLoadedToolsForRequestContext({ requestContext });
  }
  if (i % sweepEvery === 0 || i === threads) {
    const live = processor.getStateStats().threadCount;
    await idle();
    // The processor's own cleanup timer (every 60 s at the least) fires only while the event
    // loop turns, i.e. during idle(): a run past a minute sees it evict a batch just before
    // cleanupNow() does. Both are the store's eviction; count them together.
    const timerEvicted = live - processor.getStateStats().threadCount;
    const evicted = timerEvicted + processor.cleanupNow();
    evictedTotal += evicted;
    if (i % sampleEvery === 0 || i === threads) {
      await collect();
      samples.push({ threads: i, liveBeforeSweep: live, evicted, ...processor.getStateStats(), ...memory(), ms: Date.now() - started });
    }
  }
}

const liveAtEnd = processor.getStateStats().threadCount;
await idle();
evictedTotal += liveAtEnd - processor.getStateStats().threadCount + processor.cleanupNow();
await collect();
const final = { threads, loads, evictedTotal, ...processor.getStateStats(), ...memory(), ms: Date.now() - started };
processor.dispose();

if (json) {
  console.log(JSON.stringify({ options: { threads, sampleEvery, sweepEvery, fullEvery, ttl }, samples, final }));
} else {
  console.log(`${threads.toLocaleString('en')} threads, ttl ${ttl} ms, sweep every ${sweepEvery.toLocaleString('en')}, every ${fullEvery === 1 ? '' : `${fullEvery}th `}thread loads a tool (node ${process.version})\n`);
  console.log('| threads | live before sweep | evicted | threads after sweep | RSS MB | heap used MB | external MB | elapsed s |');
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const s of samples) {
    console.log(`| ${s.threads.toLocaleString('en')} | ${s.liveBeforeSweep} | ${s.evicted} | ${s.threadCount} | ${s.rssMB} | ${s.heapUsedMB} | ${s.externalMB} | ${(s.ms / 1000).toFixed(1)} |`);
  }
  console.log(`\nafter the last sweep: ${final.threadCount} threads, ${final.evictedTotal.toLocaleString('en')} evicted in all, ${final.loads.toLocaleString('en')} tool loads, RSS ${final.rssMB} MB, heap ${final.heapUsedMB} MB`);
}
