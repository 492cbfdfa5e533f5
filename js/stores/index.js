'use strict';
// Loaded-state stores: the contract shared by ToolSearchProcessor and SkillSearchProcessor
// for per-thread loaded names kept outside the process (e.g. Redis), and the helpers a
// processor uses to call such a store safely: a bound on every call, typed results
// instead of rejections, and one warning per outage.
//
// A store maps a thread key (a string) to an insertion-ordered set of names with an idle
// TTL that restarts on use:
//   load(threadKey, { signal })          -> Promise<string[]>  names in insertion order;
//                                           restarts the TTL of an existing entry; never
//                                           creates one
//   add(threadKey, names, { signal })    -> Promise<void>      appends names not yet present
//                                           (first insertion keeps its position); restarts
//                                           the TTL; no-op for []
//   clear(threadKey, { signal })         -> Promise<void>      forgets one thread
//   clearAll({ signal })                 -> Promise<void>      forgets every thread of this store
// optional:
//   stats({ signal })                    -> Promise<{ threadCount, oldestAccessTime }>
//   bind({ kind, ttlMs })                -> LoadedStateStore   the store a processor uses:
//                                           fills in defaults the user left unset
//   timeoutMs                            -> number             per-call bound the processor applies
//   kind                                 -> string             implementation name for messages

const { describeValue } = require('../util.js');

const DEFAULT_TIMEOUT_MS = 500;
const CLEAR_ALL_BOUND_FACTOR = 20;
const REQUIRED_METHODS = ['load', 'add', 'clear', 'clearAll'];
const STORE_SHAPE = '{ load(threadKey), add(threadKey, names), clear(threadKey), clearAll() } returning promises';
const PROCESSOR_KINDS = new Set(['tool-search', 'skill-search']);

/** A store call that did not settle within its time bound. */
class StoreTimeoutError extends Error {
  constructor(operation, timeoutMs) {
    super(`state store ${operation} timed out after ${timeoutMs} ms`);
    this.name = 'StoreTimeoutError';
    this.operation = operation;
    this.timeoutMs = timeoutMs;
  }
}

/** A store reply that is not what the contract promises (e.g. load returned a non-array). */
class StoreReplyError extends Error {
  constructor(message) {
    super(message);
    this.name = 'StoreReplyError';
  }
}

function isPlainTimeout(value) {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

/**
 * Throws a TypeError naming `optionName` unless `value` implements the store contract.
 * Returns `value` for chaining.
 */
function assertStateStore(value, optionName = 'options.storage') {
  const fail = (why) =>
    new TypeError(
      `${optionName} must be 'in-memory', 'context' or a state store object ${STORE_SHAPE}; received ${why}.`,
    );
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) {
    throw fail(describeValue(value));
  }
  for (const method of REQUIRED_METHODS) {
    if (typeof value[method] !== 'function') {
      throw fail(`an object without a ${method}() method`);
    }
  }
  for (const method of ['stats', 'bind']) {
    if (value[method] !== undefined && typeof value[method] !== 'function') {
      throw fail(`an object whose ${method} is ${describeValue(value[method])}, not a function`);
    }
  }
  if (value.timeoutMs !== undefined && !isPlainTimeout(value.timeoutMs)) {
    throw fail(`an object whose timeoutMs is ${describeValue(value.timeoutMs)}, not a positive number of milliseconds`);
  }
  return value;
}

/**
 * The store a processor of `kind` should use: `store.bind({ kind, ttlMs })` when the store
 * has a bind hook (it fills in the key prefix and TTL the user left unset), else the store.
 */
function bindStateStore(store, { kind, ttlMs } = {}, optionName = 'options.storage') {
  assertStateStore(store, optionName);
  if (!PROCESSOR_KINDS.has(kind)) {
    throw new TypeError(`bindStateStore: kind must be 'tool-search' or 'skill-search'; received ${describeValue(kind)}.`);
  }
  if (typeof store.bind !== 'function') return store;
  const bound = store.bind({ kind, ttlMs });
  return assertStateStore(bound, `${optionName}.bind() result`);
}

/**
 * Runs `fn(signal)` bounded by `timeoutMs`. Rejects with StoreTimeoutError after the bound
 * (and aborts `signal` so a client can drop a command it has not sent yet); a rejection that
 * arrives after that is swallowed. An already-aborted or later-aborted `outerSignal` aborts
 * the call too.
 */
function runBounded(operation, fn, timeoutMs, outerSignal) {
  const controller = new AbortController();
  let timer;
  let onOuterAbort;
  const cleanup = () => {
    clearTimeout(timer);
    if (onOuterAbort) outerSignal.removeEventListener('abort', onOuterAbort);
  };
  const bound = new Promise((_, reject) => {
    timer = setTimeout(() => {
      const error = new StoreTimeoutError(operation, timeoutMs);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
    if (outerSignal) {
      onOuterAbort = () => {
        controller.abort(outerSignal.reason);
        reject(outerSignal.reason ?? new Error(`state store ${operation} aborted`));
      };
      if (outerSignal.aborted) onOuterAbort();
      else outerSignal.addEventListener('abort', onOuterAbort, { once: true });
    }
  });
  let work;
  try {
    if (controller.signal.aborted) throw controller.signal.reason;
    work = Promise.resolve(fn(controller.signal));
  } catch (error) {
    work = Promise.reject(error);
  }
  // Whichever loses the race must never surface as an unhandled rejection.
  work.catch(() => {});
  bound.catch(() => {});
  return Promise.race([work, bound]).finally(cleanup);
}

/**
 * Like runBounded but never rejects: resolves `{ ok: true, value }` or
 * `{ ok: false, error, timedOut }`.
 */
async function withTimeout(fn, timeoutMs = DEFAULT_TIMEOUT_MS, { operation = 'call', signal } = {}) {
  try {
    return { ok: true, value: await runBounded(operation, fn, timeoutMs, signal) };
  } catch (error) {
    return { ok: false, error, timedOut: error instanceof StoreTimeoutError };
  }
}

/** What a failed call means for the user, per operation (the end of each warning). */
const CONSEQUENCES = {
  load: 'treating the thread as having nothing loaded until the store answers again.',
  add: 'the names were not saved, and the model was told the load did not take.',
  clear: 'clearState() resolved { ok: false, error }; the thread may still hold its names.',
  clearAll: 'clearAllState() resolved { ok: false, error }; some threads may still hold their names.',
  stats: 'getStoreStats() resolved null.',
};

/**
 * One warning per outage: `fail()` warns only when the previous outcome was a success (or
 * nothing yet); `ok()` ends the outage. The logger comes from `getLogger()` at warn time
 * (a Mastra logger registered later is picked up), else console.
 */
function createOutageWarner(getLogger, label) {
  let failing = false;
  return {
    fail(operation, error) {
      if (failing) return false;
      failing = true;
      const logger = (typeof getLogger === 'function' && getLogger()) || console;
      const reason = error && error.message ? error.message : String(error);
      const consequence = CONSEQUENCES[operation] ?? CONSEQUENCES.load;
      logger.warn(`${label}: state store ${operation} failed (${reason}); ${consequence}`, { error });
      return true;
    },
    ok() {
      failing = false;
    },
    get failing() {
      return failing;
    },
  };
}

function cleanNames(value) {
  if (!Array.isArray(value)) return undefined;
  const out = [];
  const seen = new Set();
  for (const name of value) {
    const s = typeof name === 'string' ? name : Buffer.isBuffer(name) ? name.toString('utf8') : undefined;
    if (s === undefined || seen.has(s)) continue;
    seen.add(s);
    out.push(s);
  }
  return out;
}

/**
 * What a processor calls: every method is bounded by `timeoutMs` (the store's own, else
 * `options.timeoutMs`, else 500 ms), never rejects, and reports failures once per outage.
 *   load(threadKey)        -> { ok: true, names } | { ok: false, names: [], error, timedOut }
 *   add(threadKey, names)  -> { ok: true } | { ok: false, error, timedOut }
 *   clear(threadKey), clearAll(), stats() -> { ok, value?, error? } (clearAll: 20x the bound)
 * Names read back are de-duplicated strings; anything else in the reply is dropped (the
 * processor must still re-check them against its catalog: a store is not a trust boundary).
 */
function guardStateStore(store, { getLogger, label = 'mastra-native-processors', timeoutMs } = {}) {
  assertStateStore(store);
  const bound = isPlainTimeout(store.timeoutMs) ? store.timeoutMs : isPlainTimeout(timeoutMs) ? timeoutMs : DEFAULT_TIMEOUT_MS;
  // Steps (load, add) and admin calls (clear, clearAll, stats) warn separately: an admin
  // call failing must not spend a step outage's one warning, nor a step success end an
  // admin outage (or the reverse).
  const warner = createOutageWarner(getLogger, label);
  const adminWarner = createOutageWarner(getLogger, label);
  const call = async (operation, fn, limit = bound, outage = adminWarner) => {
    const result = await withTimeout(fn, limit, { operation });
    if (result.ok) outage.ok();
    else outage.fail(operation, result.error);
    return result;
  };
  return {
    store,
    timeoutMs: bound,
    warner,
    adminWarner,
    async load(threadKey) {
      const result = await withTimeout((signal) => store.load(threadKey, { signal }), bound, { operation: 'load' });
      if (!result.ok) {
        warner.fail('load', result.error);
        return { ok: false, names: [], error: result.error, timedOut: result.timedOut };
      }
      const names = cleanNames(result.value);
      if (names === undefined) {
        // A reply that breaks the contract is a failure too: it must not end the outage.
        const error = new StoreReplyError(`state store load returned ${describeValue(result.value)}, not an array of names`);
        warner.fail('load', error);
        return { ok: false, names: [], error, timedOut: false };
      }
      warner.ok();
      return { ok: true, names };
    },
    async add(threadKey, names) {
      if (names.length === 0) return { ok: true };
      const result = await call('add', (signal) => store.add(threadKey, names, { signal }), bound, warner);
      return result.ok ? { ok: true } : { ok: false, error: result.error, timedOut: result.timedOut };
    },
    clear(threadKey) {
      return call('clear', (signal) => store.clear(threadKey, { signal }));
    },
    clearAll() {
      // Clearing every thread may take many round trips (SCAN batches): a wider bound.
      return call('clearAll', (signal) => store.clearAll({ signal }), bound * CLEAR_ALL_BOUND_FACTOR);
    },
    stats() {
      if (typeof store.stats !== 'function') {
        return Promise.resolve({ ok: true, value: { threadCount: 0, oldestAccessTime: null } });
      }
      return call('stats', (signal) => store.stats({ signal }));
    },
  };
}

module.exports = {
  DEFAULT_TIMEOUT_MS,
  StoreTimeoutError,
  StoreReplyError,
  assertStateStore,
  bindStateStore,
  runBounded,
  withTimeout,
  createOutageWarner,
  guardStateStore,
};
