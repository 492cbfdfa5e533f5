// Per-step overhead of `storage: redisStore(client)` in the processors, against the default
// in-memory state: sequential `processInputStep` calls (and a step plus one `load_tool` /
// `load_skill` call) over 1,000 threads with a few names loaded each, on a redis-server on
// loopback (node-redis v5 client with the recommended settings). Target: p50 under 1 ms added
// per step.
//
//   node bench/stores-processor.mjs            # starts its own redis-server on a free port
//   STEPS=5000 node bench/stores-processor.mjs
//
// bench/run-all.mjs runs it whenever a Redis-compatible server can be had (see scripts/lib/redis-server.mjs).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { percentile } from './util.mjs';
import { startServer } from './redis-server.mjs';
import { resolveRedisServer } from '../scripts/lib/redis-server.mjs';

const require = createRequire(import.meta.url);
const { ToolSearchProcessor, SkillSearchProcessor, redisStore } = require('../index.js');
const { createTool } = require('@mastra/core/tools');
const { MessageList } = require('@mastra/core/agent');
const { RequestContext } = require('@mastra/core/request-context');
const { Workspace, LocalFilesystem } = require('@mastra/core/workspace');
const { createClient } = require('redis');

const THREADS = 1000;
const TOOLS = 200;
const LOADED_PER_THREAD = 3;

/** Whether a Redis-compatible server can be had (on PATH, else valkey-server from PyPI). */
export function hasRedisServer() {
  try {
    resolveRedisServer({ log: (m) => console.error(m) });
    return true;
  } catch (error) {
    console.error(`bench/stores-processor.mjs: ${error.message}`);
    return false;
  }
}

function contextFor(thread) {
  const rc = new RequestContext();
  rc.set('mastra__threadId', thread);
  return rc;
}

const toolId = (i) => `tool_${i}`;
const tools = Object.fromEntries(
  Array.from({ length: TOOLS }, (_, i) => [
    toolId(i),
    createTool({ id: toolId(i), description: `bench tool number ${i} for ${['mail', 'calendar', 'weather', 'files'][i % 4]}`, execute: async () => ({ i }) }),
  ]),
);

function skillsRoot(count) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'mnp-bench-skills-'));
  for (let i = 0; i < count; i++) {
    const dir = path.join(root, 'skills', `skill-${i}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'SKILL.md'), `---\nname: skill-${i}\ndescription: Bench skill ${i}\n---\n# Skill ${i}\n\nDo thing ${i} carefully.\n`);
  }
  return root;
}

/** Sequential steps on random threads: `[step only, step + one load]` latencies in ms. */
async function measure(processor, { steps, warmup, load }) {
  const only = [];
  const withLoad = [];
  for (let i = 0; i < warmup + steps; i++) {
    const thread = `bench-${(i * 7919) % THREADS}`;
    const messageList = new MessageList({ threadId: thread, resourceId: 'r' });
    const args = { tools: {}, messageList, requestContext: contextFor(thread), messages: [], stepNumber: 1 };
    const t0 = performance.now();
    const result = await processor.processInputStep(args);
    const t1 = performance.now();
    await load(result.tools, i);
    const t2 = performance.now();
    if (i >= warmup) {
      only.push(t1 - t0);
      withLoad.push(t2 - t0);
    }
  }
  return { only, withLoad };
}

async function prefill(processor, loadName) {
  for (let t = 0; t < THREADS; t += 50) {
    await Promise.all(
      Array.from({ length: 50 }, async (_, k) => {
        const thread = `bench-${t + k}`;
        for (let n = 0; n < LOADED_PER_THREAD; n++) {
          const messageList = new MessageList({ threadId: thread, resourceId: 'r' });
          const r = await processor.processInputStep({ tools: {}, messageList, requestContext: contextFor(thread), messages: [], stepNumber: 1 });
          await loadName(r.tools, t + k + n * 17);
        }
      }),
    );
  }
}

export async function run({ quick = false } = {}) {
  const steps = Number(process.env.STEPS ?? (quick ? 1000 : 3000));
  const warmup = quick ? 200 : 500;
  const server = await startServer();
  const client = createClient({
    url: server.url,
    disableOfflineQueue: true,
    socket: { reconnectStrategy: (retries) => Math.min(50 + retries * 50, 500) },
  });
  client.on('error', () => {});
  await client.connect();
  const root = skillsRoot(20);
  const rows = [];
  try {
    const loadTool = (t, i) => t.load_tool.execute({ toolName: toolId(i % TOOLS) }, {});
    const loadSkill = (t, i) => t.load_skill.execute({ skillName: `skill-${i % 20}` }, {});
    const make = {
      tools: (storage) => new ToolSearchProcessor({ tools, ...(storage ? { storage } : {}) }),
      skills: (storage) =>
        new SkillSearchProcessor({
          workspace: new Workspace({ filesystem: new LocalFilesystem({ basePath: root }), skills: ['skills'], bm25: true }),
          ...(storage ? { storage } : {}),
        }),
    };
    for (const [label, kind, load] of [
      ['ToolSearchProcessor', 'tools', loadTool],
      ['SkillSearchProcessor', 'skills', loadSkill],
    ]) {
      const results = {};
      for (const [mode, storage] of [
        ['in-memory', undefined],
        ['redisStore', redisStore(client, { keyPrefix: `mastra:bench-${kind}:` })],
      ]) {
        const processor = make[kind](storage);
        await prefill(processor, load);
        results[mode] = await measure(processor, { steps, warmup, load });
        if (storage) await processor.clearAllState();
        processor.dispose();
      }
      for (const [what, key] of [
        ['step', 'only'],
        ['step + one load', 'withLoad'],
      ]) {
        const mem = results['in-memory'][key];
        const red = results.redisStore[key];
        rows.push({
          name: `${label}: ${what}`,
          memory_p50: percentile(mem, 50),
          memory_p95: percentile(mem, 95),
          redis_p50: percentile(red, 50),
          redis_p95: percentile(red, 95),
          added_p50: percentile(red, 50) - percentile(mem, 50),
        });
      }
    }
  } finally {
    await client.close().catch(() => {});
    server.stop();
    rmSync(root, { recursive: true, force: true });
  }
  return { rows, steps };
}

function fmt(ms) {
  return ms >= 1 ? `${ms.toFixed(2)} ms` : `${(ms * 1000).toFixed(0)} µs`;
}

export function printStoresTable({ rows, steps }) {
  console.log(
    `\n### storage: redisStore(client) vs in-memory, per step (${steps} sequential steps over ${THREADS} threads, ${LOADED_PER_THREAD}+ names loaded each, loopback redis-server, node-redis v5)\n`,
  );
  console.log('| benchmark | in-memory p50 | in-memory p95 | redisStore p50 | redisStore p95 | added p50 |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    console.log(`| ${r.name} | ${fmt(r.memory_p50)} | ${fmt(r.memory_p95)} | ${fmt(r.redis_p50)} | ${fmt(r.redis_p95)} | ${fmt(r.added_p50)} |`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (!hasRedisServer()) {
    process.exit(1);
  }
  printStoresTable(await run({ quick: process.argv.includes('--quick') }));
}
