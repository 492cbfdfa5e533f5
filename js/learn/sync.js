'use strict';
// Keeps this process's learned index in step with a shared learning store (`learn.store`).
//
// The store is a durable, shared LOG of learned examples and tombstones; every process replays
// it into its own in-process index, which alone answers queries (no network on the read path).
//   pull()   once per step, before the index is used: reads what other processes appended since
//            the last read, waiting at most the store's time bound (a slow store finishes in the
//            background and is applied at a later step).
//   push()   when this process learns: the index already holds the example (read-your-writes);
//            the append is fire-and-forget. Records carry this process's origin id, so they are
//            not applied a second time when they come back from the log.
// Fault rules (as the loaded-state stores'): a failing store never fails or stalls a
// generation. The first failure warns once and starts an outage: no learning (nothing is
// added or pushed), steps do not wait for the store, and a background retry (unref'd timers:
// it never keeps Node alive) reads again with backoff until the store answers; the outage then
// ends by itself and the log is read from where this process stopped.

const crypto = require('node:crypto');
const { runBounded, StoreReplyError } = require('../stores/index.js');
const { describeValue } = require('../util.js');

const DEFAULT_TIMEOUT_MS = 500;
/** forgetResource and clear may take many round trips (a scan of the log): a wider bound. */
const ADMIN_BOUND_FACTOR = 20;
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 5_000;

const STORE_METHODS = ['append', 'read', 'forgetResource', 'clear'];
const STORE_SHAPE = `{ ${STORE_METHODS.map((m) => `${m}()`).join(', ')} } returning promises, close() optional`;

/** Why `store` is not a learning store (a phrase for a TypeError), or undefined when it is. */
function learnStoreProblem(store) {
  if (store === null || typeof store !== 'object') return describeValue(store);
  for (const method of STORE_METHODS) {
    if (typeof store[method] !== 'function') return `an object with no ${method}() method`;
  }
  if (store.close !== undefined && typeof store.close !== 'function') return `an object whose close is ${describeValue(store.close)}, not a function`;
  if (store.timeoutMs !== undefined && !isPositive(store.timeoutMs)) {
    return `an object whose timeoutMs is ${describeValue(store.timeoutMs)}, not a positive number of milliseconds`;
  }
  return undefined;
}

function isPositive(value) {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

function unrefTimer(fn, ms) {
  const timer = setTimeout(fn, ms);
  timer.unref?.();
  return timer;
}

class LearnSync {
  #store;
  #apply;
  #getLogger;
  #label;
  #timeoutMs;
  /** This process's id in the log: its own records are skipped when read back. */
  origin = crypto.randomUUID();
  #cursor;
  #catchingUp;
  #failing = false;
  #lastOutage = null;
  #retryTimer;
  #retryDelay = RETRY_FIRST_MS;
  #disposed = false;

  /**
   * `apply(record)` puts another process's record into the index; `getLogger()` gives the
   * logger for the outage warning (console when it gives nothing).
   */
  constructor(store, { apply, getLogger, label = 'ToolSearchProcessor' }) {
    this.#store = store;
    this.#apply = apply;
    this.#getLogger = getLogger;
    this.#label = label;
    this.#timeoutMs = isPositive(store.timeoutMs) ? store.timeoutMs : DEFAULT_TIMEOUT_MS;
  }

  /** 'redis' for redisLearnStore, else 'custom'. */
  get kind() {
    return this.#store.kind === 'redis' ? 'redis' : 'custom';
  }

  /** False during an outage: nothing is learned until the store answers again. */
  get healthy() {
    return !this.#failing && !this.#disposed;
  }

  /** When the last outage began (ISO time), or null. */
  get lastOutage() {
    return this.#lastOutage;
  }

  /** Applies what other processes appended since the last read; never rejects, waits at most the time bound. */
  async pull() {
    if (this.#disposed) return;
    if (this.#failing) {
      this.#scheduleRetry();
      return;
    }
    let timer;
    const bound = new Promise((resolve) => (timer = unrefTimer(resolve, this.#timeoutMs)));
    await Promise.race([this.#catchUp(), bound]);
    clearTimeout(timer);
  }

  /** Appends `record` (fire-and-forget); a failure starts an outage. */
  push(record) {
    if (!this.healthy) return;
    const full = { ...record, origin: this.origin };
    runBounded('append', (signal) => this.#store.append(full, { signal }), this.#timeoutMs).catch((error) => this.#fail('append', error));
  }

  /** Deletes `resource`'s records from the store and appends a tombstone; resolves the store's count. */
  async forgetResource(resource) {
    const tombstone = this.#tombstone('forget', resource);
    const removed = await this.#admin('forgetResource', (signal) => this.#store.forgetResource(resource, { tombstone, signal }));
    if (!Number.isInteger(removed) || removed < 0) {
      throw new StoreReplyError(`${this.#label}: learning store forgetResource resolved ${describeValue(removed)}, not a count of records`);
    }
    return removed;
  }

  /** Deletes every record from the store and appends a tombstone. */
  async clear() {
    const tombstone = this.#tombstone('clear', '');
    await this.#admin('clear', (signal) => this.#store.clear({ tombstone, signal }));
  }

  /** Stops the background retry and closes the store (its close(), when it has one). */
  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    if (typeof this.#store.close === 'function') {
      Promise.resolve()
        .then(() => this.#store.close())
        .catch(() => {});
    }
  }

  #tombstone(type, resource) {
    return { type, partition: '', resource, tool: '', time: Date.now(), payload: '', origin: this.origin };
  }

  async #admin(operation, fn) {
    try {
      return await runBounded(operation, fn, this.#timeoutMs * ADMIN_BOUND_FACTOR);
    } catch (error) {
      const reason = error && error.message ? error.message : String(error);
      throw new Error(`${this.#label}: learning store ${operation} failed (${reason}); this process's index forgot, the shared store may not have.`, { cause: error });
    }
  }

  /** The read loop in flight, or a new one: one at a time, shared by concurrent steps. */
  #catchUp() {
    if (!this.#catchingUp) {
      this.#catchingUp = this.#readAll().finally(() => {
        this.#catchingUp = undefined;
      });
    }
    return this.#catchingUp;
  }

  /** Reads batches until the log is exhausted; true when it was, false on a failure (never rejects). */
  async #readAll() {
    while (!this.#disposed) {
      let page;
      try {
        page = await runBounded('read', (signal) => this.#store.read(this.#cursor, { signal }), this.#timeoutMs);
        if (!page || typeof page !== 'object' || !Array.isArray(page.records)) {
          throw new StoreReplyError(`learning store read resolved ${describeValue(page)}, not { records, cursor }`);
        }
      } catch (error) {
        this.#fail('read', error);
        return false;
      }
      this.#recovered();
      for (const record of page.records) {
        if (!record || typeof record !== 'object' || record.origin === this.origin) continue;
        try {
          this.#apply(record);
        } catch {
          // (a record this version cannot apply is skipped: a store is not a trust boundary)
        }
      }
      if (page.cursor !== undefined) this.#cursor = page.cursor;
      if (page.records.length === 0 || page.more === false) return true;
    }
    return false;
  }

  #fail(operation, error) {
    if (this.#disposed) return;
    if (!this.#failing) {
      this.#failing = true;
      this.#lastOutage = new Date().toISOString();
      const logger = (typeof this.#getLogger === 'function' && this.#getLogger()) || console;
      const reason = error && error.message ? error.message : String(error);
      logger.warn(
        `${this.#label}: learning store ${operation} failed (${reason}); learning is paused (the index keeps what it holds, nothing new is learned) until the store answers again.`,
        { error },
      );
    }
    this.#scheduleRetry();
  }

  #recovered() {
    if (!this.#failing) return;
    this.#failing = false;
    this.#retryDelay = RETRY_FIRST_MS;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
  }

  /** One pending retry at a time, with backoff; unref'd so it never keeps Node alive. */
  #scheduleRetry() {
    if (this.#retryTimer !== undefined || this.#disposed) return;
    this.#retryTimer = unrefTimer(() => {
      this.#retryTimer = undefined;
      this.#retryDelay = Math.min(this.#retryDelay * 2, RETRY_MAX_MS);
      // (a failure here reaches #fail, which schedules the next try)
      this.#catchUp();
    }, this.#retryDelay);
  }
}

module.exports = { LearnSync, learnStoreProblem, STORE_SHAPE };
