'use strict';
// Redis loaded-state store (contract: ./index.js) on a connected client the user passes:
// node-redis v5 (`redis` package, createClient) or ioredis. Neither package is required
// here; the client is recognised by its shape.
//
// Layout: one sorted set per thread, key `<keyPrefix><encoded threadKey>`, members = names,
// scores = insertion order (0, 1, 2, ... per key, assigned inside the script, so the order is
// exact across processes). Every call is one round trip (a Lua script, atomic on the
// server): load = ZRANGE + PEXPIRE, add = ZADD NX + PEXPIRE. clear = DEL; clearAll = SCAN
// MATCH <prefix>* + UNLINK in batches (never KEYS).

const crypto = require('node:crypto');
const { describeValue } = require('../util.js');
const { checkOptions } = require('../options.js');
const { DEFAULT_TIMEOUT_MS, StoreReplyError, runBounded } = require('./index.js');

const DEFAULT_TTL_MS = 3_600_000;
const DEFAULT_PREFIX_UNBOUND = 'mastra:loaded:';
const SCAN_COUNT = '1000';

// ARGV[1] = ttl ms (0: no expiry). Returns the names in insertion order.
const LOAD_SCRIPT = `local names = redis.call('ZRANGE', KEYS[1], 0, -1)
local ttl = tonumber(ARGV[1])
if ttl > 0 and #names > 0 then redis.call('PEXPIRE', KEYS[1], ttl) end
return names`;

// ARGV[1] = ttl ms (0: no expiry), ARGV[2..] = names. Appends names not yet present after the
// current last one; returns how many were new.
const ADD_SCRIPT = `local key = KEYS[1]
local ttl = tonumber(ARGV[1])
local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
local score = 0
if #last == 2 then score = tonumber(last[2]) + 1 end
local added = 0
for i = 2, #ARGV do
  if redis.call('ZADD', key, 'NX', score, ARGV[i]) == 1 then
    score = score + 1
    added = added + 1
  end
end
if ttl > 0 then redis.call('PEXPIRE', key, ttl) else redis.call('PERSIST', key) end
return added`;

// KEYS = a batch of keys. Returns { existing count, smallest positive PTTL or -1 }.
const STATS_SCRIPT = `local count = 0
local min = -1
for i = 1, #KEYS do
  local t = redis.call('PTTL', KEYS[i])
  if t ~= -2 then
    count = count + 1
    if t >= 0 and (min < 0 or t < min) then min = t end
  end
end
return { count, min }`;

/** A Lua script with its SHA-1, as EVALSHA names it. */
const luaScript = (text) => ({ text, sha: crypto.createHash('sha1').update(text).digest('hex') });
const SCRIPTS = { load: luaScript(LOAD_SCRIPT), add: luaScript(ADD_SCRIPT), stats: luaScript(STATS_SCRIPT) };

/**
 * Runs `script` through `send(args)`: EVALSHA, and EVAL once when the server has not cached it
 * (after a restart or SCRIPT FLUSH).
 */
async function runScript(send, script, keys, argv) {
  const tail = [String(keys.length), ...keys, ...argv];
  try {
    return await send(['EVALSHA', script.sha, ...tail]);
  } catch (error) {
    if (!/NOSCRIPT/.test(error && error.message)) throw error;
    return send(['EVAL', script.text, ...tail]);
  }
}

// Characters a thread key keeps as they are; everything else is %XX (UTF-8) or, for a lone
// surrogate, %uXXXX. Encoded keys therefore never contain ':', glob characters or braces, and
// distinct thread keys always give distinct encodings.
const SAFE_CHARS = /^[A-Za-z0-9_.~-]*$/;
const ENCODED_CHARS = /^[A-Za-z0-9_.~%-]*$/;

function encodeThreadKey(threadKey) {
  if (SAFE_CHARS.test(threadKey)) return threadKey;
  let out = '';
  for (let i = 0; i < threadKey.length; i++) {
    const ch = threadKey[i];
    if (/[A-Za-z0-9_.~-]/.test(ch)) {
      out += ch;
      continue;
    }
    const code = threadKey.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < threadKey.length) {
      const next = threadKey.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += percentBytes(threadKey.slice(i, i + 2));
        i++;
        continue;
      }
    }
    if (code >= 0xd800 && code <= 0xdfff) {
      out += `%u${code.toString(16).toUpperCase().padStart(4, '0')}`;
      continue;
    }
    out += percentBytes(ch);
  }
  return out;
}

function percentBytes(text) {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}

// Replies are checked against what each command or script returns: a proxy, a wrong server or
// a script that was replaced could answer anything, and a reply of the wrong shape must be a
// failure (warned, reported to the model) rather than "nothing loaded" or a silent success.
const isReplyString = (value) => typeof value === 'string' || Buffer.isBuffer(value);
const isReplyInteger = (value) => (typeof value === 'number' && Number.isInteger(value)) || typeof value === 'bigint';

function badReply(operation, reply, expected) {
  return new StoreReplyError(`redisStore: ${operation} answered ${describeValue(reply)}, not ${expected}`);
}

function checkReply(operation, reply, valid, expected) {
  if (!valid(reply)) throw badReply(operation, reply, expected);
  return reply;
}

const isNameList = (reply) => Array.isArray(reply) && reply.every(isReplyString);
const isStatsReply = (reply) => Array.isArray(reply) && reply.length === 2 && reply.every(isReplyInteger);
const isScanReply = (reply) => Array.isArray(reply) && reply.length === 2 && isReplyString(reply[0]) && Array.isArray(reply[1]) && reply[1].every(isReplyString);

function globEscape(text) {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}

function replyString(value) {
  return Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
}

/** How to send a raw command on this client, or undefined when it is neither client. */
function adapterFor(client) {
  if (client === null || typeof client !== 'object') return undefined;
  // Cluster clients route per key and SCAN one node only: clearAll could not see every key.
  if (client.isCluster === true || typeof client.getSlotMaster === 'function') return 'cluster';
  // ioredis: Redis/Cluster instances have call(command, ...args) and a status string.
  if (typeof client.call === 'function' && typeof client.status === 'string') {
    return {
      name: 'ioredis',
      send: (args) => client.call(...args),
    };
  }
  // node-redis v5 (createClient): sendCommand(args, options) and an isOpen flag. The abort
  // signal drops a command that is still waiting in the offline queue when we time out.
  if (typeof client.sendCommand === 'function' && typeof client.isOpen === 'boolean') {
    return {
      name: 'redis',
      send: (args, signal) => client.sendCommand(args, signal ? { abortSignal: signal } : undefined),
    };
  }
  return undefined;
}

function optionError(path, expected, value) {
  return new TypeError(`redisStore: ${path} must be ${expected}; received ${describeValue(value)}.`);
}

function checkThreadKey(threadKey) {
  if (typeof threadKey !== 'string') throw optionError('threadKey', 'a string', threadKey);
}

function checkNames(names) {
  if (!Array.isArray(names) || names.some((n) => typeof n !== 'string')) {
    throw optionError('names', 'an array of strings', names);
  }
}

/**
 * `redisStore(client, { keyPrefix?, timeoutMs?, ttlMs? })`.
 * - keyPrefix: default `mastra:<kind>:` once a processor binds the store (kind 'tool-search'
 *   or 'skill-search'), `mastra:loaded:` when used unbound. Must end with a separator (any
 *   character but a letter, digit, '_', '.', '~', '%' or '-'), so no prefix's keys can be
 *   mistaken for another's.
 * - timeoutMs: bound of each round trip (default 500).
 * - ttlMs: idle expiry, restarted by every load/add (default: the processor's `ttl`, else one
 *   hour; 0 = never expire).
 */
function redisStore(client, options = {}) {
  const adapter = adapterFor(client);
  if (adapter === 'cluster') {
    throw optionError(
      'client',
      'a standalone node-redis v5 or ioredis client (cluster clients are not supported: clearAll could not reach every node)',
      client,
    );
  }
  if (!adapter) {
    throw optionError(
      'client',
      "a connected node-redis v5 client (createClient() from 'redis') or an ioredis client",
      client,
    );
  }
  if (options === null || typeof options !== 'object') {
    throw optionError('options', 'an object { keyPrefix?, timeoutMs?, ttlMs? }', options);
  }
  // (an unknown key, e.g. `prefix`, is warned about once, as the processors' options are)
  checkOptions(options, { name: 'redisStore', keys: ['keyPrefix', 'timeoutMs', 'ttlMs'] });
  const { keyPrefix, timeoutMs = DEFAULT_TIMEOUT_MS, ttlMs } = options;
  if (
    keyPrefix !== undefined &&
    (typeof keyPrefix !== 'string' || keyPrefix === '' || ENCODED_CHARS.test(keyPrefix[keyPrefix.length - 1]))
  ) {
    throw optionError(
      'options.keyPrefix',
      "a non-empty string ending with a separator such as ':' (not a letter, digit, '_', '.', '~', '%' or '-')",
      keyPrefix,
    );
  }
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw optionError('options.timeoutMs', 'a positive finite number of milliseconds', timeoutMs);
  }
  if (ttlMs !== undefined && (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs < 0)) {
    throw optionError('options.ttlMs', 'a non-negative finite number of milliseconds (0: never expire)', ttlMs);
  }
  const boundKinds = new Set();

  const send = (operation, args, signal) => runBounded(operation, (inner) => adapter.send(args, inner), timeoutMs, signal);

  const evalScript = (operation, script, keys, argv, signal) => runScript((args) => send(operation, args, signal), script, keys, argv);

  function make(prefix, ttl, processorKind) {
    const keyFor = (threadKey) => prefix + encodeThreadKey(threadKey);
    const ttlArg = String(Math.round(ttl));
    const store = {
      kind: 'redis',
      client: adapter.name,
      keyPrefix: prefix,
      ttlMs: ttl,
      timeoutMs,
      processorKind,
      keyFor,
      async load(threadKey, opts) {
        checkThreadKey(threadKey);
        const reply = await evalScript('load', SCRIPTS.load, [keyFor(threadKey)], [ttlArg], opts && opts.signal);
        return checkReply('load', reply, isNameList, 'a list of names').map(replyString);
      },
      async add(threadKey, names, opts) {
        checkThreadKey(threadKey);
        checkNames(names);
        if (names.length === 0) return;
        const reply = await evalScript('add', SCRIPTS.add, [keyFor(threadKey)], [ttlArg, ...names], opts && opts.signal);
        checkReply('add', reply, isReplyInteger, 'the count of names added');
      },
      async clear(threadKey, opts) {
        checkThreadKey(threadKey);
        checkReply('clear', await send('clear', ['DEL', keyFor(threadKey)], opts && opts.signal), isReplyInteger, 'a count of deleted keys');
      },
      async clearAll(opts) {
        const signal = opts && opts.signal;
        await scanOwnKeys(signal, async (keys) => {
          checkReply('clearAll', await send('clearAll', ['UNLINK', ...keys], signal), isReplyInteger, 'a count of deleted keys');
        });
      },
      async stats(opts) {
        const signal = opts && opts.signal;
        let threadCount = 0;
        let minPttl = -1;
        await scanOwnKeys(signal, async (keys) => {
          const reply = await evalScript('stats', SCRIPTS.stats, keys, [], signal);
          const [count, min] = checkReply('stats', reply, isStatsReply, 'a { count, min } pair of integers');
          threadCount += Number(count);
          if (Number(min) >= 0 && (minPttl < 0 || Number(min) < minPttl)) minPttl = Number(min);
        });
        // With an idle TTL, the soonest expiry tells when the least recently used thread was
        // last touched.
        const oldestAccessTime = threadCount > 0 && ttl > 0 && minPttl >= 0 ? Date.now() - (ttl - minPttl) : null;
        return { threadCount, oldestAccessTime };
      },
      bind({ kind, ttlMs: processorTtl } = {}) {
        if (kind !== 'tool-search' && kind !== 'skill-search') {
          throw optionError('bind() kind', "'tool-search' or 'skill-search'", kind);
        }
        if (keyPrefix !== undefined) {
          if (boundKinds.size > 0 && !boundKinds.has(kind)) {
            throw new TypeError(
              `redisStore: this store has the explicit keyPrefix ${JSON.stringify(keyPrefix)} and is already used by a ` +
                `${[...boundKinds][0]} processor; tool and skill names would share keys. Create one redisStore per ` +
                'processor kind with its own keyPrefix, or leave keyPrefix unset (defaults: mastra:tool-search:, mastra:skill-search:).',
            );
          }
          boundKinds.add(kind);
        }
        let resolvedTtl = ttlMs;
        if (resolvedTtl === undefined && processorTtl !== undefined) {
          if (typeof processorTtl !== 'number' || !Number.isFinite(processorTtl) || processorTtl < 0) {
            throw optionError('bind() ttlMs', 'a non-negative finite number of milliseconds', processorTtl);
          }
          resolvedTtl = processorTtl;
        }
        return make(keyPrefix ?? `mastra:${kind}:`, resolvedTtl ?? DEFAULT_TTL_MS, kind);
      },
    };

    /** SCAN MATCH <prefix>*, keeping only keys this prefix could have written. */
    async function scanOwnKeys(signal, onBatch) {
      const pattern = `${globEscape(prefix)}*`;
      let cursor = '0';
      do {
        const reply = checkReply('scan', await send('scan', ['SCAN', cursor, 'MATCH', pattern, 'COUNT', SCAN_COUNT], signal), isScanReply, 'a [cursor, keys] pair');
        cursor = replyString(reply[0]);
        const keys = [];
        for (const raw of reply[1]) {
          const key = replyString(raw);
          if (key.startsWith(prefix) && ENCODED_CHARS.test(key.slice(prefix.length))) keys.push(key);
        }
        if (keys.length > 0) await onBatch(keys);
      } while (cursor !== '0');
    }

    return store;
  }

  return make(keyPrefix ?? DEFAULT_PREFIX_UNBOUND, ttlMs ?? DEFAULT_TTL_MS, undefined);
}

module.exports = { redisStore, encodeThreadKey, adapterFor, isReplyString, replyString, luaScript, runScript, ENCODED_CHARS, DEFAULT_TTL_MS };
