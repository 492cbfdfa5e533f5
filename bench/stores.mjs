// Loaded-state store overhead per step: the JS memory store vs the Redis store on loopback
// (node-redis v5 and ioredis), raw and through guardStateStore (what a processor calls).
// A "step" is what a processor does at most once per step: load the thread's names, then
// add one name (a load_tool call). Latency is measured sequentially (one step at a time).
//
//   node bench/stores.mjs                 # starts its own redis-server on a free port
//   REDIS_URL=redis://127.0.0.1:6379 node bench/stores.mjs   # use a running server (flushes nothing; keys under mastra:bench:)
//   STEPS=5000 node bench/stores.mjs
//
// Starts redis-server (the system's, else valkey-server from PyPI) unless REDIS_URL is set.
import { createRequire } from 'node:module';
import { percentile } from './util.mjs';
import { startServer } from './redis-server.mjs';

const require = createRequire(import.meta.url);
const { redisStore } = require('../js/stores/redis.js');
const { memoryStore } = require('../js/stores/memory.js');
const { guardStateStore } = require('../js/stores/index.js');
const { createClient } = require('redis');
const IORedis = require('ioredis');

const STEPS = Number(process.env.STEPS ?? 3000);
const THREADS = 1000;
const WARMUP = 300;

async function measure(store) {
  // 1,000 threads with 5 names each, like conversations a few tools in.
  await store.clearAll();
  for (let t0 = 0; t0 < THREADS; t0 += 50) {
    await Promise.all(
      Array.from({ length: 50 }, (_, k) => store.add(`thread-${t0 + k}`, ['a', 'b', 'c', 'd', 'e'].map((n) => `${n}-${t0 + k}`))),
    );
  }
  const load = [];
  const add = [];
  const step = [];
  for (let i = 0; i < WARMUP + STEPS; i++) {
    const thread = `thread-${(i * 7919) % THREADS}`;
    const t0 = performance.now();
    const names = await store.load(thread);
    const t1 = performance.now();
    await store.add(thread, [`tool-${i % 50}`]);
    const t2 = performance.now();
    if (!names) throw new Error('no names');
    if (i >= WARMUP) {
      load.push(t1 - t0);
      add.push(t2 - t1);
      step.push(t2 - t0);
    }
  }
  await store.clearAll();
  return { load, add, step };
}

/** The guard's shape differs (typed results); adapt it to the store calls measure() makes. */
function guarded(store) {
  const g = guardStateStore(store);
  return {
    load: async (t) => {
      const r = await g.load(t);
      if (!r.ok) throw r.error;
      return r.names;
    },
    add: async (t, names) => {
      const r = await g.add(t, names);
      if (!r.ok) throw r.error;
    },
    clearAll: () => store.clearAll(),
  };
}

function fmt(ms) {
  return ms >= 1 ? `${ms.toFixed(2)} ms` : `${(ms * 1000).toFixed(0)} µs`;
}

const external = process.env.REDIS_URL;
const server = external ? { url: external, stop() {} } : await startServer();
const node = createClient({ url: server.url });
node.on('error', () => {});
await node.connect();
const io = new IORedis(server.url, { lazyConnect: true });
io.on('error', () => {});
await io.connect();

const rows = [];
const cases = [
  ['JS memory store', () => memoryStore().bind({ kind: 'tool-search' })],
  ['Redis, node-redis v5', () => redisStore(node, { keyPrefix: 'mastra:bench:node:' })],
  ['Redis, ioredis', () => redisStore(io, { keyPrefix: 'mastra:bench:io:' })],
  ['Redis, node-redis v5, guarded', () => guarded(redisStore(node, { keyPrefix: 'mastra:bench:gnode:' }))],
  ['Redis, ioredis, guarded', () => guarded(redisStore(io, { keyPrefix: 'mastra:bench:gio:' }))],
];
for (const [name, make] of cases) {
  const r = await measure(make());
  rows.push({ name, r });
}

console.log(`\n### Loaded-state store overhead per step (${STEPS} sequential steps over ${THREADS} threads, loopback Redis ${external ? 'at REDIS_URL' : '7, own server'})\n`);
console.log('| store | load p50 | load p95 | add p50 | add p95 | step (load + add) p50 | step p95 |');
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const { name, r } of rows) {
  console.log(
    `| ${name} | ${fmt(percentile(r.load, 50))} | ${fmt(percentile(r.load, 95))} | ${fmt(percentile(r.add, 50))} | ${fmt(percentile(r.add, 95))} | ${fmt(percentile(r.step, 50))} | ${fmt(percentile(r.step, 95))} |`,
  );
}

await node.close();
io.disconnect();
server.stop();
