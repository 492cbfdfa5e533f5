'use strict';
// A JS in-memory loaded-state store: the reference semantics of the store contract (see
// ./index.js). The processors' default in-memory state stays in Rust; this one exists for
// tests, for custom-store authors to read, and for setups that want the async contract
// without Redis.

const { describeValue } = require('../util.js');
const { checkOptions } = require('../options.js');

const DEFAULT_TTL_MS = 3_600_000;

function ttlError(value) {
  return new TypeError(
    `memoryStore: options.ttlMs must be a non-negative finite number of milliseconds (0: never expire); received ${describeValue(value)}.`,
  );
}

function checkTtl(value) {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw ttlError(value);
  return value;
}

function checkThreadKey(threadKey) {
  if (typeof threadKey !== 'string') {
    throw new TypeError(`memoryStore: threadKey must be a string; received ${describeValue(threadKey)}.`);
  }
}

function checkNames(names) {
  if (!Array.isArray(names) || names.some((n) => typeof n !== 'string')) {
    throw new TypeError(`memoryStore: names must be an array of strings; received ${describeValue(names)}.`);
  }
}

function abortedError(signal) {
  return signal.reason ?? new Error('aborted');
}

/**
 * `memoryStore({ ttlMs?, now? })`: threads expire `ttlMs` after their last load/add
 * (0: never). `now` (default Date.now) exists for tests.
 */
function memoryStore(options = {}) {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`memoryStore: options must be an object; received ${describeValue(options)}.`);
  }
  checkOptions(options, { name: 'memoryStore', keys: ['ttlMs', 'now'] });
  const explicitTtl = checkTtl(options.ttlMs);
  const now = options.now ?? Date.now;
  if (typeof now !== 'function') {
    throw new TypeError(`memoryStore: options.now must be a function returning milliseconds; received ${describeValue(now)}.`);
  }
  // kind -> Map<threadKey, { names: Set<string>, lastAccessed }>; unbound stores use ''.
  const spaces = new Map();

  function make(kind, ttlMs) {
    let threads = spaces.get(kind);
    if (!threads) {
      threads = new Map();
      spaces.set(kind, threads);
    }
    const expired = (entry, at) => ttlMs > 0 && at - entry.lastAccessed > ttlMs;
    const live = (threadKey, at) => {
      const entry = threads.get(threadKey);
      if (!entry) return undefined;
      if (expired(entry, at)) {
        threads.delete(threadKey);
        return undefined;
      }
      return entry;
    };
    // The map is kept in access order (a touched thread moves to the end), so expired threads
    // are at its front: every load/add drops them from there and stops at the first live one,
    // O(1) amortised (each thread is dropped once), no timer. Threads that are never read
    // again are freed by the next call on any thread. (A clock that steps back can leave a
    // few behind a newer entry until they reach the front; stats() sweeps everything.)
    const sweep = (at) => {
      if (!(ttlMs > 0)) return;
      for (const [key, entry] of threads) {
        if (!expired(entry, at)) break;
        threads.delete(key);
      }
    };
    const touch = (threadKey, entry, at) => {
      entry.lastAccessed = at;
      threads.delete(threadKey);
      threads.set(threadKey, entry);
    };
    const guard = (opts) => {
      const signal = opts && opts.signal;
      if (signal && signal.aborted) throw abortedError(signal);
    };
    return {
      kind: 'memory',
      ttlMs,
      async load(threadKey, opts) {
        checkThreadKey(threadKey);
        guard(opts);
        const at = now();
        sweep(at);
        const entry = live(threadKey, at);
        if (!entry) return [];
        touch(threadKey, entry, at);
        return [...entry.names];
      },
      async add(threadKey, names, opts) {
        checkThreadKey(threadKey);
        checkNames(names);
        guard(opts);
        if (names.length === 0) return;
        const at = now();
        sweep(at);
        const entry = live(threadKey, at) ?? { names: new Set(), lastAccessed: at };
        touch(threadKey, entry, at);
        for (const name of names) entry.names.add(name);
      },
      async clear(threadKey, opts) {
        checkThreadKey(threadKey);
        guard(opts);
        threads.delete(threadKey);
      },
      async clearAll(opts) {
        guard(opts);
        threads.clear();
      },
      async stats(opts) {
        guard(opts);
        const at = now();
        let oldest = null;
        for (const key of [...threads.keys()]) {
          const entry = live(key, at);
          if (entry && (oldest === null || entry.lastAccessed < oldest)) oldest = entry.lastAccessed;
        }
        return { threadCount: threads.size, oldestAccessTime: oldest };
      },
      bind({ kind: boundKind, ttlMs: processorTtl } = {}) {
        const ttl = explicitTtl ?? checkTtl(processorTtl) ?? DEFAULT_TTL_MS;
        return make(String(boundKind ?? ''), ttl);
      },
    };
  }

  return make('', explicitTtl ?? DEFAULT_TTL_MS);
}

module.exports = { memoryStore };
