'use strict';
// redisLearnStore: a shared learning store (js/learn/sync.js) in Redis, on a connected
// node-redis (v4/v5) or ioredis client the user passes (recognised by shape, as redisStore's).
//
// Layout: one Redis stream, `<keyPrefix>log`, one entry per record, field `r` = the record as
// JSON. A stream rather than a list + counter: entry ids are assigned by the server, strictly
// increasing across every process, so an id is a ready-made cursor (XRANGE from just after it
// is exactly "what I have not read"), and XADD's MAXLEN keeps the bound in the same command.
// The bound is exact (MAXLEN n, not ~n): records are written once per learned tool call, so
// exact trimming's small cost is irrelevant and maxRecords means what it says.
//   append          XADD <log> MAXLEN <maxRecords> * r <json>            one round trip
//   read            XRANGE <log> (<cursor> + COUNT <batchSize>           one round trip
//   forgetResource  XRANGE batches over the log + XDEL of the resource's entries, XADD of the
//                   tombstone, then one more pass up to the tombstone (records appended while
//                   the scan ran are deleted too)
//   clear           one script: XTRIM MAXLEN 0 (keeps the stream's last id, so ids never go
//                   back and every process's cursor stays valid) + XADD of the tombstone

const { describeValue } = require('../util.js');
const { checkOptions } = require('../options.js');
const { DEFAULT_TIMEOUT_MS, StoreReplyError, runBounded } = require('../stores/index.js');
const { adapterFor, isReplyString, replyString, luaScript, runScript } = require('../stores/redis.js');

const DEFAULTS = Object.freeze({ keyPrefix: 'mastra:learn:', maxRecords: 100_000, batchSize: 500 });
const OPTION_KEYS = ['client', 'keyPrefix', 'maxRecords', 'timeoutMs', 'batchSize'];
const RECORD_TYPES = new Set(['example', 'forget', 'clear']);
const STREAM_ID = /^\d+-\d+$/;
/** Entries per XRANGE while forgetResource scans the log. */
const SCAN_BATCH = 1000;

// ARGV[1] = maxRecords, ARGV[2] = the tombstone's JSON. Returns how many entries were removed.
const CLEAR_SCRIPT = luaScript(`local n = redis.call('XLEN', KEYS[1])
redis.call('XTRIM', KEYS[1], 'MAXLEN', 0)
redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[1], '*', 'r', ARGV[2])
return n`);

function optionError(path, expected, value) {
  return new TypeError(`redisLearnStore: ${path} must be ${expected}; received ${describeValue(value)}.`);
}

function badReply(operation, reply, expected) {
  return new StoreReplyError(`redisLearnStore: ${operation} answered ${describeValue(reply)}, not ${expected}`);
}

const isInteger = (value) => (typeof value === 'number' && Number.isInteger(value)) || typeof value === 'bigint';

/** An XRANGE reply: [[id, [field, value, ...]], ...]. */
const isEntries = (reply) =>
  Array.isArray(reply) && reply.every((e) => Array.isArray(e) && e.length === 2 && isReplyString(e[0]) && Array.isArray(e[1]) && e[1].every(isReplyString));

/** The record an entry holds, or undefined when it holds none this version can read. */
function recordOf(fields) {
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (replyString(fields[i]) !== 'r') continue;
    try {
      const record = JSON.parse(replyString(fields[i + 1]));
      return record && typeof record === 'object' && !Array.isArray(record) ? record : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** A record as it is written: the documented fields only, checked (a TypeError names the field). */
function recordJson(record, path = 'record') {
  if (record === null || typeof record !== 'object') throw optionError(path, 'a learning record object', record);
  const type = record.type ?? 'example';
  if (!RECORD_TYPES.has(type)) throw optionError(`${path}.type`, "'example', 'forget' or 'clear'", record.type);
  for (const field of ['partition', 'resource', 'tool', 'payload']) {
    if (typeof record[field] !== 'string') throw optionError(`${path}.${field}`, 'a string', record[field]);
  }
  if (typeof record.time !== 'number' || !Number.isFinite(record.time)) throw optionError(`${path}.time`, 'a finite number (ms since the epoch)', record.time);
  for (const field of ['origin', 'vectorModel']) {
    if (record[field] !== undefined && typeof record[field] !== 'string') throw optionError(`${path}.${field}`, 'a string', record[field]);
  }
  const { partition, resource, tool, time, payload, origin, vectorModel } = record;
  return JSON.stringify({ type, partition, resource, tool, time, payload, ...(origin !== undefined ? { origin } : {}), ...(vectorModel !== undefined ? { vectorModel } : {}) });
}

/**
 * `redisLearnStore({ client, keyPrefix?, maxRecords?, timeoutMs?, batchSize? })`: the store for
 * `learn.store` that every process of a deployment shares.
 * - client: a connected node-redis v4/v5 client or an ioredis client (standalone).
 * - keyPrefix: namespace of the one key, `<keyPrefix>log` (default `mastra:learn:`).
 * - maxRecords: most records the log keeps (default 100,000); the oldest go first.
 * - timeoutMs: bound of each round trip (default 500).
 * - batchSize: records per read (default 500).
 */
function redisLearnStore(options) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw optionError('options', 'an object { client, keyPrefix?, maxRecords?, timeoutMs?, batchSize? }', options);
  }
  const adapter = adapterFor(options.client);
  if (adapter === 'cluster') {
    throw optionError('options.client', 'a standalone node-redis or ioredis client (cluster clients are not supported)', options.client);
  }
  if (!adapter) {
    throw optionError('options.client', "a connected node-redis client (createClient() from 'redis') or an ioredis client", options.client);
  }
  // (an unknown key, e.g. `prefix`, is warned about once with the closest option)
  checkOptions(options, { name: 'redisLearnStore', keys: OPTION_KEYS });
  const { keyPrefix = DEFAULTS.keyPrefix, maxRecords = DEFAULTS.maxRecords, timeoutMs = DEFAULT_TIMEOUT_MS, batchSize = DEFAULTS.batchSize } = options;
  if (typeof keyPrefix !== 'string' || keyPrefix === '') throw optionError('options.keyPrefix', 'a non-empty string', keyPrefix);
  if (!Number.isInteger(maxRecords) || maxRecords < 1) throw optionError('options.maxRecords', 'a positive integer', maxRecords);
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw optionError('options.timeoutMs', 'a positive finite number of milliseconds', timeoutMs);
  }
  if (!Number.isInteger(batchSize) || batchSize < 1) throw optionError('options.batchSize', 'a positive integer', batchSize);

  const key = `${keyPrefix}log`;
  const maxArg = String(maxRecords);
  const send = (operation, args, signal) => runBounded(operation, (inner) => adapter.send(args, inner), timeoutMs, signal);
  const xadd = async (operation, json, signal) => {
    const id = await send(operation, ['XADD', key, 'MAXLEN', maxArg, '*', 'r', json], signal);
    if (!isReplyString(id) || !STREAM_ID.test(replyString(id))) throw badReply(operation, id, 'a stream entry id');
    return replyString(id);
  };
  const range = async (operation, start, end, count, signal) => {
    const reply = await send(operation, ['XRANGE', key, start, end, 'COUNT', String(count)], signal);
    if (!isEntries(reply)) throw badReply(operation, reply, 'a list of stream entries');
    return reply.map(([id, fields]) => ({ id: replyString(id), record: recordOf(fields) }));
  };

  /** XDELs `resource`'s entries from just after `from` up to `to` (inclusive); returns the examples removed and the last id seen. */
  async function deleteResource(resource, from, to, signal) {
    let removed = 0;
    let last = from;
    for (;;) {
      const entries = await range('forgetResource', last === undefined ? '-' : `(${last}`, to, SCAN_BATCH, signal);
      if (entries.length === 0) return { removed, last };
      last = entries[entries.length - 1].id;
      const doomed = entries.filter((e) => e.record?.resource === resource);
      if (doomed.length > 0) {
        const reply = await send('forgetResource', ['XDEL', key, ...doomed.map((e) => e.id)], signal);
        if (!isInteger(reply)) throw badReply('forgetResource', reply, 'a count of deleted entries');
        removed += doomed.filter((e) => (e.record.type ?? 'example') === 'example').length;
      }
      if (entries.length < SCAN_BATCH) return { removed, last };
    }
  }

  return {
    kind: 'redis',
    client: adapter.name,
    keyPrefix,
    key,
    maxRecords,
    timeoutMs,
    batchSize,
    async append(record, opts) {
      await xadd('append', recordJson(record), opts?.signal);
    },
    async read(cursor, opts) {
      if (cursor !== undefined && (typeof cursor !== 'string' || !STREAM_ID.test(cursor))) {
        throw optionError('read() cursor', 'undefined or a cursor read() returned', cursor);
      }
      const entries = await range('read', cursor === undefined ? '-' : `(${cursor}`, '+', batchSize, opts?.signal);
      // (an entry this version cannot read is skipped, but the cursor moves past it)
      const records = entries.map((e) => e.record).filter((r) => r !== undefined);
      return { records, cursor: entries.length > 0 ? entries[entries.length - 1].id : cursor, more: entries.length === batchSize };
    },
    async forgetResource(resource, opts) {
      if (typeof resource !== 'string') throw optionError('forgetResource() resource', 'a string', resource);
      const signal = opts?.signal;
      const first = await deleteResource(resource, undefined, '+', signal);
      if (!opts?.tombstone) return first.removed;
      const tombstoneId = await xadd('forgetResource', recordJson(opts.tombstone, 'tombstone'), signal);
      // Records of the resource appended while the first pass ran sit before the tombstone.
      const second = await deleteResource(resource, first.last, `(${tombstoneId}`, signal);
      return first.removed + second.removed;
    },
    async clear(opts) {
      const tombstone = opts?.tombstone ?? { type: 'clear', partition: '', resource: '', tool: '', time: Date.now(), payload: '' };
      const json = recordJson(tombstone, 'tombstone');
      const reply = await runScript((args) => send('clear', args, opts?.signal), CLEAR_SCRIPT, [key], [maxArg, json]);
      if (!isInteger(reply)) throw badReply('clear', reply, 'a count of removed entries');
    },
  };
}

module.exports = { redisLearnStore };
