'use strict';
// Shared cache of tool and skill vectors for `search.embedder` (`search.embeddingCache`), so
// that several processes (serverless instances, workers behind a load balancer) embed a catalog
// once between them instead of once each. Contract (custom caches implement it):
//   get(keys, { signal }) -> Promise<Array<string | null | undefined>>  (one value per key)
//   set(entries, { signal }) -> Promise<void>                           (entries: [key, value][])
// Values are base64 of the vector's little-endian float32 bytes; keys are this package's (a
// hash of the embedding model's identity and the text), so a cache never learns the texts.
// `redisEmbeddingCache(client)` keeps them in Redis as plain strings with a TTL.

const { describeValue } = require('../util.js');
const { checkOptions } = require('../options.js');
const { DEFAULT_TIMEOUT_MS, runBounded } = require('./index.js');
const { adapterFor, isReplyString, luaScript, replyString, runScript, ENCODED_CHARS } = require('./redis.js');

const DEFAULT_PREFIX = 'mastra:embedding:';
/** Vectors outlive any conversation: 30 days, renewed whenever a process writes them again. */
const DEFAULT_EMBEDDING_TTL_MS = 30 * 24 * 3_600_000;
/** Keys per read, and bytes of values per write: one round trip each (a 1,536-value vector is 8 KB). */
const CHUNK = 250;
const WRITE_BYTES = 1 << 20;

// KEYS = the chunk's keys, ARGV[1] = ttl ms (0: none), ARGV[2..] = their values.
const SET_SCRIPT = luaScript(`local ttl = tonumber(ARGV[1])
for i = 1, #KEYS do
  if ttl > 0 then redis.call('SET', KEYS[i], ARGV[i + 1], 'PX', ttl) else redis.call('SET', KEYS[i], ARGV[i + 1]) end
end
return #KEYS`);

function optionError(path, expected, value) {
  return new TypeError(`redisEmbeddingCache: ${path} must be ${expected}; received ${describeValue(value)}.`);
}

/**
 * `redisEmbeddingCache(client, { keyPrefix?, timeoutMs?, ttlMs? })`: MGET to read (250 keys per
 * round trip), a script of SET … PX to write (1 MB of values per round trip). `timeoutMs` bounds
 * each round trip; `ttlMs` 0 keeps vectors until Redis evicts them.
 */
function redisEmbeddingCache(client, options = {}) {
  const adapter = adapterFor(client);
  if (!adapter || adapter === 'cluster') {
    throw optionError('client', "a connected standalone node-redis v5 client (createClient() from 'redis') or an ioredis client", client);
  }
  if (options === null || typeof options !== 'object') throw optionError('options', 'an object { keyPrefix?, timeoutMs?, ttlMs? }', options);
  checkOptions(options, { name: 'redisEmbeddingCache', keys: ['keyPrefix', 'timeoutMs', 'ttlMs'] });
  const { keyPrefix = DEFAULT_PREFIX, timeoutMs = DEFAULT_TIMEOUT_MS, ttlMs = DEFAULT_EMBEDDING_TTL_MS } = options;
  if (typeof keyPrefix !== 'string' || keyPrefix === '' || ENCODED_CHARS.test(keyPrefix[keyPrefix.length - 1])) {
    throw optionError('options.keyPrefix', "a non-empty string ending with a separator such as ':'", keyPrefix);
  }
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw optionError('options.timeoutMs', 'a positive finite number of milliseconds', timeoutMs);
  }
  if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs < 0) {
    throw optionError('options.ttlMs', 'a non-negative finite number of milliseconds (0: no expiry)', ttlMs);
  }
  const checkKeys = (keys) => {
    if (!Array.isArray(keys) || keys.some((k) => typeof k !== 'string' || k === '')) throw optionError('get() keys', 'an array of non-empty strings', keys);
  };
  return {
    kind: 'redis-embedding-cache',
    keyPrefix,
    timeoutMs,
    ttlMs,
    async get(keys, opts) {
      checkKeys(keys);
      const out = [];
      for (let i = 0; i < keys.length; i += CHUNK) {
        const chunk = keys.slice(i, i + CHUNK);
        const reply = await runBounded('get', (signal) => adapter.send(['MGET', ...chunk.map((k) => keyPrefix + k)], signal), timeoutMs, opts && opts.signal);
        if (!Array.isArray(reply) || reply.length !== chunk.length || !reply.every((v) => v === null || isReplyString(v))) {
          throw new Error(`redisEmbeddingCache: MGET answered ${describeValue(reply)}, not ${chunk.length} strings or nulls`);
        }
        for (const value of reply) out.push(value === null ? null : replyString(value));
      }
      return out;
    },
    async set(entries, opts) {
      if (!Array.isArray(entries) || entries.some((e) => !Array.isArray(e) || typeof e[0] !== 'string' || e[0] === '' || typeof e[1] !== 'string')) {
        throw optionError('set() entries', 'an array of [key, value] string pairs', entries);
      }
      const ttl = String(Math.round(ttlMs));
      for (let i = 0; i < entries.length; ) {
        let end = i;
        for (let bytes = 0; end < entries.length && (end === i || bytes + entries[end][1].length <= WRITE_BYTES); end++) bytes += entries[end][1].length;
        const chunk = entries.slice(i, end);
        i = end;
        const keys = chunk.map(([key]) => keyPrefix + key);
        const argv = [ttl, ...chunk.map(([, value]) => value)];
        const reply = await runBounded('set', (signal) => runScript((args) => adapter.send(args, signal), SET_SCRIPT, keys, argv), timeoutMs, opts && opts.signal);
        if (Number(reply) !== chunk.length) throw new Error(`redisEmbeddingCache: the write answered ${describeValue(reply)}, not ${chunk.length}`);
      }
    },
  };
}

module.exports = { redisEmbeddingCache, DEFAULT_EMBEDDING_TTL_MS };
