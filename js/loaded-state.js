'use strict';
// Loaded-name state in a shared store (`storage: <store>`, ours on every host), as both search
// processors use it: the store bound to the processor's kind and wrapped by guardStateStore
// (every call bounded, a failed read is nothing loaded with one warning per outage, a failed
// write is `{ ok: false }`). Names cross lossless (a lone surrogate would not survive UTF-8).
// Whatever a store answers is re-checked by the processor: a store is not a trust boundary.

const { decodeTexts, encodeTexts } = require('./lossless.js');
const { bindStateStore, guardStateStore } = require('./stores/index.js');
const { sharedThreadKey } = require('./thread-id.js');
const { settledOf } = require('./util.js');

class SharedLoadedNames {
  /**
   * `kind` is the processor's store kind ('tool-search' or 'skill-search'), `label` its class
   * name (in warnings and in the error of a thread id no other process could share).
   */
  constructor(store, { kind, ttlMs, getLogger, label }) {
    const bound = bindStateStore(store, { kind, ttlMs }, 'options.storage');
    this.guard = guardStateStore(bound, { getLogger, label });
    this.label = label;
  }

  /** The store key of a thread id. */
  keyOf(threadId) {
    return sharedThreadKey(threadId, this.label);
  }

  /** The names stored under `key` (none when the store fails). */
  async namesAt(key) {
    return decodeTexts((await this.guard.load(key)).names);
  }

  /** Resolves `{ ok }`; `ok: false` means the names may not have been stored. */
  addAt(key, names) {
    return this.guard.add(key, encodeTexts(names));
  }

  /** Forgets one thread: a promise of `{ ok, error? }` that never rejects. */
  clearThread(threadId) {
    return settledOf(this.guard.clear(sharedThreadKey(threadId, `${this.label}.clearState`)));
  }

  /** Forgets every thread of the store's namespace: a promise of `{ ok, error? }`. */
  clearAll() {
    return settledOf(this.guard.clearAll());
  }

  /** The store's `stats()`, or null when it does not answer. */
  async stats() {
    const result = await this.guard.stats();
    return result.ok ? result.value : null;
  }
}

module.exports = { SharedLoadedNames };
