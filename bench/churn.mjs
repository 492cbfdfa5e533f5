// State churn: many short-lived threads through ToolSearchProcessor's in-memory store (the
// native NativeLoadedNameStore), each touched once and then left idle; a TTL sweep
// (`cleanupNow()`, what the store's cleanup timer calls) evicts them. Prints RSS, heap and
// `getStateStats()` every `--sample-every` threads as a markdown table (or JSON with `--json`).
//
//   node --expose-gc bench/churn.mjs                      # 1,000,000 threads, every one loads a tool
//   node --expose-gc bench/churn.mjs --full-every 10      # 9 of 10 threads only read (faster)
//   node --expose-gc bench/churn.mjs --threads 200000 --json
//   node --expose-gc bench/churn.mjs --store memory       # through storage: memoryStore({ ttlMs })
//
// A thread is "full" (by default every one; with `--full-every N` every N-th): one
// `processInputStep` for the thread, then its `load_tool` loads a tool (a native write); the
// thread then goes idle. The others take the cheapest public path that still reaches the native
// store, `getLoadedToolsForRequestContext` (a native read, which creates or touches the thread's
// entry exactly as a step does). 1,000,000 full threads take ~16 s on a 2-core machine.
// The sweep runs every `--sweep-every` threads, as the timer would between requests.
import { memoryStore, ToolSearchProcessor } from 'mastra-native-processors';
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
// 'native' (the default in-memory state, swept by cleanupNow()) or 'memory' (memoryStore(),
// which sweeps expired threads itself as threads are read and written: no cleanupNow()).
const storeAt = process.argv.indexOf('--store');
const storeKind = storeAt >= 0 ? process.argv[storeAt + 1] : 'native';
if (storeKind !== 'native' && storeKind !== 'memory') {
  console.error(`--store must be native or memory; received ${storeKind}`);
  process.exit(2);
}

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
const store = storeKind === 'memory' ? memoryStore({ ttlMs: ttl }) : undefined;
const processor = new ToolSearchProcessor(store ? { tools, storage: store } : { tools, ttl });
/** Live threads: the native state's count, or the store's (its stats() also sweeps, so it is read only at samples). */
const liveThreads = async () => (store ? (await processor.getStoreStats()).threadCount : processor.getStateStats().threadCount);
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
  if (store) {
    // memoryStore() sweeps as it is used: nothing to call, no idle time given. Memory is
    // sampled before stats() (which sweeps too), so the store's own sweep is what it shows.
    if (i % sampleEvery === 0 || i === threads) {
      await collect();
      const before = memory();
      samples.push({ threads: i, ...before, threadCount: await liveThreads(), ms: Date.now() - started });
    }
    continue;
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

let final;
if (store) {
  await idle();
  await collect();
  final = { threads, loads, ...memory(), threadCount: await liveThreads(), ms: Date.now() - started };
} else {
  const liveAtEnd = processor.getStateStats().threadCount;
  await idle();
  evictedTotal += liveAtEnd - processor.getStateStats().threadCount + processor.cleanupNow();
  await collect();
  final = { threads, loads, evictedTotal, ...processor.getStateStats(), ...memory(), ms: Date.now() - started };
}
processor.dispose();

if (json) {
  console.log(JSON.stringify({ options: { store: storeKind, threads, sampleEvery, sweepEvery, fullEvery, ttl }, samples, final }));
} else if (store) {
  console.log(`${threads.toLocaleString('en')} threads through memoryStore({ ttlMs: ${ttl} }), every ${fullEvery === 1 ? '' : `${fullEvery}th `}thread loads a tool (node ${process.version})\n`);
  console.log('| threads | RSS MB | heap used MB | live threads | elapsed s |');
  console.log('| ---: | ---: | ---: | ---: | ---: |');
  for (const s of samples) console.log(`| ${s.threads.toLocaleString('en')} | ${s.rssMB} | ${s.heapUsedMB} | ${s.threadCount} | ${(s.ms / 1000).toFixed(1)} |`);
  console.log(`\nat the end: ${final.threadCount} threads, ${final.loads.toLocaleString('en')} tool loads, RSS ${final.rssMB} MB, heap ${final.heapUsedMB} MB`);
} else {
  console.log(`${threads.toLocaleString('en')} threads, ttl ${ttl} ms, sweep every ${sweepEvery.toLocaleString('en')}, every ${fullEvery === 1 ? '' : `${fullEvery}th `}thread loads a tool (node ${process.version})\n`);
  console.log('| threads | live before sweep | evicted | threads after sweep | RSS MB | heap used MB | external MB | elapsed s |');
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const s of samples) {
    console.log(`| ${s.threads.toLocaleString('en')} | ${s.liveBeforeSweep} | ${s.evicted} | ${s.threadCount} | ${s.rssMB} | ${s.heapUsedMB} | ${s.externalMB} | ${(s.ms / 1000).toFixed(1)} |`);
  }
  console.log(`\nafter the last sweep: ${final.threadCount} threads, ${final.evictedTotal.toLocaleString('en')} evicted in all, ${final.loads.toLocaleString('en')} tool loads, RSS ${final.rssMB} MB, heap ${final.heapUsedMB} MB`);
}
