'use strict';
// ToolSearchProcessor's loaded-name state, one class per `storage`: 'in-memory' (native store
// with TTL eviction), 'context' (the conversation is the record) and a shared store such as
// redisStore(client). All three answer loadedNames/addLoaded/cleanup/dispose.

const native = require('../native.js');
const { threadKey } = require('../thread-id.js');
const { decodeTexts, encodeText, encodeTexts } = require('../lossless.js');
const { SharedLoadedNames } = require('../loaded-state.js');
const { META_TOOL_NAMES, RECEIPT_TYPE } = require('./messages.js');

const MIN_CLEANUP_INTERVAL_MS = 60_000;

/** Clears the cleanup timer of a store that was garbage-collected without dispose(). */
const abandonedTimers = new FinalizationRegistry((timer) => clearInterval(timer));

/** `storage: 'in-memory'`: thread -> names, with TTL eviction on an unref'd timer. */
class InMemoryNames {
  constructor(ttl) {
    this.native = new native.NativeLoadedNameStore();
    this.ttl = ttl;
    this.timer = undefined;
    if (ttl > 0) {
      // The timer reaches the store only through a WeakRef, and a finalizer clears it, so
      // an undisposed processor is still collected and leaves no timer behind.
      const ref = new WeakRef(this);
      const timer = setInterval(() => ref.deref()?.cleanup(), Math.max(ttl / 2, MIN_CLEANUP_INTERVAL_MS));
      timer.unref?.();
      this.timer = timer;
      abandonedTimers.register(this, timer, this);
    }
  }

  #key(threadId) {
    return threadKey(threadId || 'default');
  }

  loadedNames(threadId) {
    return decodeTexts(this.native.loadedNames(this.#key(threadId)));
  }

  addLoaded(names, threadId) {
    if (names.length > 0) this.native.addLoaded(this.#key(threadId), encodeTexts(names));
  }

  cleanup() {
    return this.ttl > 0 ? this.native.cleanup(this.ttl) : 0;
  }

  dispose() {
    if (this.timer) {
      clearInterval(this.timer);
      abandonedTimers.unregister(this);
    }
    this.timer = undefined;
    this.native.clearAll();
  }
}

/** Reads an auto-load receipt `{ type, version: 1, loaded }` off a search result. */
function receiptNames(result) {
  const activation = result.activation;
  if (!activation || typeof activation !== 'object') return undefined;
  if (activation.type !== RECEIPT_TYPE || activation.version !== 1 || !Array.isArray(activation.loaded)) return undefined;
  return encodeTexts(activation.loaded.filter((n) => typeof n === 'string'));
}

/**
 * Completed meta-tool results in the messages, reduced to the fields that can activate
 * names; the native store decides which do.
 */
function activationRecords(messages) {
  const records = [];
  for (const message of messages) {
    // Only the agent's own messages record a load: a user message carrying a forged
    // tool-invocation part must not activate tools (the host reads every role).
    if (message?.role !== 'assistant' && message?.role !== 'tool') continue;
    const parts = message?.content?.parts;
    if (!Array.isArray(parts)) continue;
    for (const part of parts) {
      if (part?.type !== 'tool-invocation') continue;
      const invocation = part.toolInvocation;
      if (!invocation || invocation.state !== 'result') continue;
      const { toolName } = invocation;
      if (toolName !== 'search_tools' && toolName !== 'load_tool') continue;
      const result = invocation.result;
      if (!result || typeof result !== 'object') continue;
      records.push({
        loadTool: toolName === 'load_tool',
        success: result.success === true,
        toolName: typeof result.toolName === 'string' ? encodeText(result.toolName) : undefined,
        loaded: Array.isArray(result.loaded) ? encodeTexts(result.loaded.filter((n) => typeof n === 'string')) : [],
        receipt: toolName === 'search_tools' ? receiptNames(result) : undefined,
      });
    }
  }
  return records;
}

/** Stateless when asked without a thread: derives names from records only. */
let recordsOnly;

/**
 * The names a thread's persisted messages activated (the resume paths read them back from
 * storage when the run's in-process state is gone; see persisted-thread.js).
 */
function namesFromMessages(messages) {
  recordsOnly ??= new native.NativeContextNameStore();
  return decodeTexts(recordsOnly.loadedNames(undefined, activationRecords(messages), false));
}

/** `storage: 'context'`: the messages are the record; a supplemental set bridges one step. */
class ContextNames {
  constructor() {
    this.native = new native.NativeContextNameStore();
  }

  loadedNames(threadId, stepArgs) {
    const messages = stepArgs && Array.isArray(stepArgs.messages) ? stepArgs.messages : undefined;
    const records = messages ? activationRecords(messages) : [];
    return decodeTexts(this.native.loadedNames(threadId ? threadKey(threadId) : undefined, records, stepArgs !== undefined));
  }

  addLoaded(names, threadId) {
    if (names.length > 0 && threadId) this.native.addLoaded(threadKey(threadId), encodeTexts(names));
  }

  cleanup() {
    return 0;
  }

  dispose() {
    this.native.clearAll();
  }
}

/**
 * `storage: <store>` (ours, every host): a shared store such as redisStore(client), behind
 * guardStateStore: every call bounded, a failed read is nothing loaded (one warning per
 * outage), a failed write is reported by the meta-tool. Names read back are re-checked
 * against the catalog and the filter's 'load' phase (#loadedTools): a store is not trusted.
 */
class SharedNames extends SharedLoadedNames {
  constructor(store, ttl, getLogger) {
    super(store, { kind: 'tool-search', ttlMs: ttl, getLogger, label: 'ToolSearchProcessor' });
  }

  async loadedNames(threadId) {
    return this.namesAt(this.keyOf(threadId || 'default'));
  }

  /** Resolves `{ ok }`; `ok: false` means the names may not have been stored. */
  addLoaded(names, threadId) {
    return this.addAt(this.keyOf(threadId || 'default'), names);
  }

  cleanup() {
    // Expiry is the store's (e.g. Redis key TTLs).
    return 0;
  }

  dispose() {
    // The state is shared with other processes: a disposed processor leaves it alone.
  }
}

/**
 * The tools of the calls a suspended run waits on: the agent's own tool-invocation parts still in
 * state 'call' (an approval or a suspension), meta-tools aside. A preloaded tool is recorded by no
 * meta-tool result, so after a restart this is how a resume finds it; the host offered the tool
 * when the model called it (a call to a tool it did not offer ends as an error, never waits), and
 * the processor re-checks each name against the catalog and the filter as for any load.
 */
function awaitedCallNames(messages) {
  const names = new Set();
  for (const message of messages) {
    if (message?.role !== 'assistant') continue;
    const parts = message?.content?.parts;
    if (!Array.isArray(parts)) continue;
    for (const part of parts) {
      const invocation = part?.type === 'tool-invocation' ? part.toolInvocation : undefined;
      if (!invocation || invocation.state !== 'call' || typeof invocation.toolName !== 'string') continue;
      if (!META_TOOL_NAMES.has(invocation.toolName)) names.add(invocation.toolName);
    }
  }
  return [...names];
}

module.exports = { ContextNames, InMemoryNames, SharedNames, namesFromMessages, awaitedCallNames };
