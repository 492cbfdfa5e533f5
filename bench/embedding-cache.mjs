// search.embeddingCache: what a second process pays for a catalog's embedder vectors when a
// first one already put them in a shared Redis (redisEmbeddingCache), against embedding them
// itself. Realistic catalogs (bench/tool-search-realistic.mjs) of 1,000 and 10,000 tools and an
// embedder answering 1,536-value vectors (the size of OpenAI's text-embedding-3-small) at once:
// the provider's own latency and price come on top of the "embeds" column, which counts the
// texts and calls it would be sent. Loopback redis-server (else valkey-server from PyPI).
//
//   node bench/embedding-cache.mjs [--quick]
import { createRequire } from 'node:module';
import { realisticTools } from './tool-search-realistic.mjs';
import { startServer } from './redis-server.mjs';

const require = createRequire(import.meta.url);
const { ToolSearchProcessor, redisEmbeddingCache } = require('../index.js');
const { MessageList } = require('@mastra/core/agent');
const { RequestContext } = require('@mastra/core/request-context');
const { createClient } = require('redis');

const DIM = 1536;
const BATCH = 2048;

/** A stand-in EmbeddingModel: deterministic vectors from the text's characters; counts texts and calls. */
function embedder() {
  const stats = { calls: 0, texts: 0 };
  const vector = (text) => {
    const v = new Array(DIM);
    let h = 2166136261;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
    for (let i = 0; i < DIM; i++) {
      h = Math.imul(h ^ (h >>> 13), 0x5bd1e995);
      v[i] = ((h >>> 0) / 4294967296) * 2 - 1;
    }
    return v;
  };
  return {
    stats,
    model: {
      specificationVersion: 'v2',
      provider: 'bench',
      modelId: 'hash-1536',
      maxEmbeddingsPerCall: BATCH,
      supportsParallelCalls: false,
      async doEmbed({ values }) {
        stats.calls++;
        stats.texts += values.length;
        return { embeddings: values.map(vector) };
      },
    },
  };
}

/** One cold process's first step: until the catalog's vectors are in (ms), and what it embedded. */
async function firstStep(tools, cache) {
  const { model, stats } = embedder();
  const processor = new ToolSearchProcessor({ tools, search: { mode: 'hybrid', embedder: model, embeddingCache: cache } });
  const requestContext = new RequestContext();
  requestContext.set('mastra__threadId', 'bench');
  const started = performance.now();
  await processor.processInputStep({ tools: {}, messageList: new MessageList({ threadId: 'bench', resourceId: 'r' }), requestContext, messages: [], stepNumber: 0 });
  const ms = performance.now() - started;
  processor.dispose();
  return { ms, ...stats };
}

/** The rows as a Markdown table. */
export function printEmbeddingCacheTable(rows) {
  console.log(`\n### search.embeddingCache: a cold process's first step (ms) and what it embeds, ${DIM}-value vectors, loopback Redis (node-redis v5)\n`);
  const columns = Object.keys(rows[0]);
  console.log(`| ${columns.join(' | ')} |`);
  console.log(`|${columns.map(() => '---').join('|')}|`);
  for (const r of rows) console.log(`| ${columns.map((c) => r[c]).join(' | ')} |`);
}

export async function run({ quick = false } = {}) {
  const server = await startServer();
  const client = createClient({ url: server.url });
  client.on('error', () => {});
  await client.connect();
  const rows = [];
  for (const n of quick ? [1_000] : [1_000, 10_000]) {
    await client.flushAll();
    const tools = realisticTools(n);
    const cache = redisEmbeddingCache(client);
    const alone = await firstStep(tools, undefined);
    const first = await firstStep(tools, cache);
    // The write is not waited for: let it land before the second process reads.
    for (let i = 0; i < 200 && (await client.dbSize()) < n; i++) await new Promise((r) => setTimeout(r, 50));
    const second = await firstStep(tools, cache);
    const mb = Number((await client.info('memory')).match(/used_memory:(\d+)/)[1]) / 1e6;
    rows.push({
      tools: n,
      'no cache': `${alone.ms.toFixed(0)} ms, ${alone.texts} texts in ${alone.calls} calls`,
      'first process (cache empty)': `${first.ms.toFixed(0)} ms, ${first.texts} texts in ${first.calls} calls`,
      'second process (cache filled)': `${second.ms.toFixed(0)} ms, ${second.texts} texts in ${second.calls} calls`,
      'Redis memory MB': mb.toFixed(0),
    });
  }
  await client.close();
  server.stop();
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printEmbeddingCacheTable(await run({ quick: process.argv.includes('--quick') }));
  process.exit(0);
}
