'use strict';
// `search.embedder` (ours, 'hybrid'): the user's own AI SDK EmbeddingModel (what Mastra's memory
// `embedder` takes, e.g. openai.embedding('text-embedding-3-small')) on the semantic side of the
// fusion, in place of the shipped model's vectors. Tool texts are embedded once per catalog,
// batched within `maxEmbeddingsPerCall` and cached by text (per embedder object, across
// processors; with `search.embeddingCache`, also between processes); each search embeds its
// query once (a small cache answers repeats, such as preload's search and the model's own). An
// embedder that fails, times out or answers with the wrong shape never fails a step: the search
// uses the shipped model's vectors (or, without the model package, the lexical ranking alone),
// with one warning per outage (as the stores do), and the embedder is tried again later.

const { describeValue } = require('./util.js');
const { decodeTexts } = require('./lossless.js');

/** A query waits this long for its vector by default before the search goes on without it. */
const DEFAULT_QUERY_TIMEOUT_MS = 400;
/**
 * The first step of a catalog waits at most `catalogWaitMs` for its vectors (they keep coming in
 * the background); a failed catalog is tried again after `retryAfterMs`. Read through the exports
 * (the specs shorten them).
 */
const TIMINGS = { catalogWaitMs: 10_000, retryAfterMs: 30_000 };
/** One batch call may take this long. */
const BATCH_TIMEOUT_MS = 30_000;
/**
 * A shared-cache call may take this long (plus 1 ms per key: 10,000 vectors of 1,536 values are
 * ~80 MB to move) before the catalog goes on without it.
 */
const SHARED_CACHE_TIMEOUT_MS = 2_000;
const sharedCacheBound = (keys) => SHARED_CACHE_TIMEOUT_MS + keys;
/** Texts cached per embedder (tool texts and queries), oldest dropped first. */
const CACHE_LIMIT = 50_000;
const QUERY_CACHE_LIMIT = 256;
/**
 * The fusion's knobs with a user's embedder, `[latin, cjk, sameScript, crowdingCjk,
 * sameScriptSpan]` (the shipped model's: 0.75, 0.15, 0.15, 0.5, 0). Latin chosen on the
 * development halves with an English encoder (bench/embedder-weights.mjs, all-MiniLM-L6-v2:
 * MetaTool even lines recall@5 0.765 at 0.5, 0.782 at 1, 0.783 at 1.5; English dev requests best
 * at 0.75-1); CJK kept at the shipped model's (an English-only embedder cannot read CJK: at 1,
 * MiniLM's same-language CJK dev requests fell 0.88 -> 0.80). The same-script share is a share of
 * the request's cosine span instead of a constant: a multilingual embedder packs its cosines
 * close, and the shipped model's 0.15 buried every tool described in another language than the
 * request (`--encoder e5`, multilingual-e5-small, multilingual dev recall@5, 0.15 -> span share
 * 0.5: English requests for CJK-described tools 0.41 -> 0.78, CJK requests for tools in another
 * language 0.24 -> 0.34, same-language English 0.93 -> 0.94 and CJK 0.93 -> 0.93; with MiniLM
 * 0.69 -> 0.74, 0.25 -> 0.25, 0.93 -> 0.91, 0.88 -> 0.89). A catalog in one script ranks as
 * before (the share moves every document alike). Read through the exports, so that script can
 * vary them.
 */
const EMBEDDER_WEIGHTS = [1, 0.15, 0, 0.5, 0.5];

/** `search.embedder`, `search.embedderTimeoutMs` and `search.embeddingCache`, checked; undefined without an embedder. */
function embedderOptionsOf(search, mode, kind) {
  const embedder = search?.embedder;
  const timeout = search?.embedderTimeoutMs;
  const sharedCache = search?.embeddingCache;
  if (embedder === undefined) {
    if (timeout !== undefined) throw new TypeError(`${kind}: options.search.embedderTimeoutMs is used with options.search.embedder; received ${describeValue(timeout)} without one.`);
    if (sharedCache !== undefined) throw new TypeError(`${kind}: options.search.embeddingCache is used with options.search.embedder; received ${describeValue(sharedCache)} without one.`);
    return undefined;
  }
  if (sharedCache !== undefined && require('./stores/redis.js').adapterFor(sharedCache) !== undefined) {
    throw new TypeError(`${kind}: options.search.embeddingCache must be redisEmbeddingCache(client), not the Redis client itself; received ${describeValue(sharedCache)}.`);
  }
  if (sharedCache !== undefined && (!sharedCache || typeof sharedCache !== 'object' || typeof sharedCache.get !== 'function' || typeof sharedCache.set !== 'function')) {
    throw new TypeError(
      `${kind}: options.search.embeddingCache must be a shared vector cache such as redisEmbeddingCache(client) (an object with get(keys) and set(entries) returning promises); received ${describeValue(sharedCache)}.`,
    );
  }
  if (!embedder || typeof embedder !== 'object' || typeof embedder.doEmbed !== 'function') {
    throw new TypeError(
      `${kind}: options.search.embedder must be an AI SDK EmbeddingModel (an object with doEmbed({ values }), e.g. openai.embedding('text-embedding-3-small')); received ${describeValue(embedder)}.`,
    );
  }
  if (mode !== 'hybrid') {
    throw new TypeError(`${kind}: options.search.embedder must be used with search.mode 'hybrid'; received search.mode ${describeValue(mode)}.`);
  }
  const queryTimeoutMs = timeout ?? DEFAULT_QUERY_TIMEOUT_MS;
  if (typeof queryTimeoutMs !== 'number' || !Number.isFinite(queryTimeoutMs) || queryTimeoutMs <= 0 || queryTimeoutMs > 60_000) {
    throw new TypeError(`${kind}: options.search.embedderTimeoutMs must be a number of milliseconds from 1 to 60000; received ${describeValue(queryTimeoutMs)}.`);
  }
  return { embedder, queryTimeoutMs, sharedCache };
}

/**
 * The shared cache's key for `text` under `embedder`: a hash of the model's identity (its
 * specification version, provider and model id) and the text, so one cache serves several models and never holds the texts.
 */
function sharedKeyOf(embedder, text) {
  const identity = [embedder.specificationVersion, embedder.provider, embedder.modelId].map((v) => (typeof v === 'string' ? v : '')).join('\0');
  // Required here: an ES-module bundle must first reach the native loader's own message.
  return require('node:crypto')
    .createHash('sha256').update(identity).update('\0\0').update(text).digest('base64url');
}

/** Whether float32 arrays are little-endian here (every platform the package ships for is). */
const LITTLE_ENDIAN = new Uint8Array(Float32Array.of(1).buffer)[3] === 0x3f;

/** A vector as the shared cache stores it (base64 of its little-endian float32 bytes), and back. */
function encodeVector(vector) {
  const floats = Float32Array.from(vector);
  if (LITTLE_ENDIAN) return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength).toString('base64');
  const bytes = Buffer.alloc(floats.length * 4);
  floats.forEach((x, i) => bytes.writeFloatLE(x, i * 4));
  return bytes.toString('base64');
}
function decodeVector(value) {
  if (typeof value !== 'string' || value === '') return undefined;
  const bytes = Buffer.from(value, 'base64');
  if (bytes.length === 0 || bytes.length % 4 !== 0) return undefined;
  const vector = new Float32Array(bytes.length / 4);
  if (LITTLE_ENDIAN) new Uint8Array(vector.buffer).set(bytes);
  else for (let i = 0; i < vector.length; i++) vector[i] = bytes.readFloatLE(i * 4);
  return vector.every(Number.isFinite) ? vector : undefined;
}

/** Per embedder object: text -> Float32Array, in insertion order (oldest evicted first). */
const caches = new WeakMap();
function cacheOf(embedder) {
  let cache = caches.get(embedder);
  if (!cache) caches.set(embedder, (cache = new Map()));
  return cache;
}
function remember(cache, text, vector, limit) {
  cache.delete(text);
  cache.set(text, vector);
  while (cache.size > limit) cache.delete(cache.keys().next().value);
}

/** `promise`, or a rejection after `ms` (the timer never keeps Node alive); aborts `controller` then. */
function withTimeout(promise, ms, controller, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`${what} took longer than ${ms} ms`));
    }, ms);
    timer.unref?.();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

class EmbedderSide {
  /**
   * `getLogger()`: the processor's logger or undefined (console then); `label`: its name;
   * `fallback`: what searches use while the embedder fails, for the warning.
   */
  constructor({ embedder, queryTimeoutMs, sharedCache }, getLogger, label, fallback) {
    this.fallback = fallback;
    this.embedder = embedder;
    this.sharedCache = sharedCache;
    this.sharedFailing = false;
    /** Whether the vectors' length was first learnt from the shared cache (for the warning). */
    this.dimFromShared = false;
    this.queryTimeoutMs = queryTimeoutMs;
    this.getLogger = getLogger;
    this.label = label;
    this.cache = cacheOf(embedder);
    this.queries = new Map();
    /** native catalog -> { override?, pending?, failedAt? } */
    this.catalogs = new WeakMap();
    this.failing = false;
    this.dim = undefined;
  }

  #failed(error) {
    if (this.failing) return;
    this.failing = true;
    (this.getLogger() ?? console).warn(
      `${this.label}: search.embedder failed (${error?.message ?? error}); searching with ${this.fallback} until it answers again.`,
    );
  }

  #succeeded() {
    this.failing = false;
  }

  /** The shared cache's outcome: one warning per outage, quiet again once a call works. */
  #sharedOutcome(error) {
    if (!error) {
      this.sharedFailing = false;
      return;
    }
    if (this.sharedFailing) return;
    this.sharedFailing = true;
    (this.getLogger() ?? console).warn(
      `${this.label}: search.embeddingCache failed (${error?.message ?? error}); embedding without it until it answers again.`,
    );
  }

  /**
   * Into the local cache, the vectors the shared cache holds for `texts`; returns the texts
   * still missing. A value that is no vector, or one of another length than this embedder's,
   * counts as missing (and is written again once embedded).
   */
  async #fromShared(texts) {
    if (!this.sharedCache || texts.length === 0) return texts;
    let values;
    try {
      const controller = new AbortController();
      const keys = texts.map((t) => sharedKeyOf(this.embedder, t));
      values = await withTimeout(Promise.resolve(this.sharedCache.get(keys, { signal: controller.signal })), sharedCacheBound(keys.length), controller, 'get()');
      if (!Array.isArray(values) || values.length !== texts.length) {
        throw new Error(`get() returned ${Array.isArray(values) ? `${values.length} values` : describeValue(values)} for ${texts.length} keys`);
      }
      this.#sharedOutcome();
    } catch (error) {
      this.#sharedOutcome(error);
      return texts;
    }
    const missing = [];
    texts.forEach((text, i) => {
      const vector = decodeVector(values[i]);
      if (vector && (this.dim === undefined || vector.length === this.dim)) {
        if (this.dim === undefined) this.dimFromShared = true;
        this.dim = vector.length;
        remember(this.cache, text, vector, CACHE_LIMIT);
      } else missing.push(text);
    });
    return missing;
  }

  /** Writes freshly embedded vectors to the shared cache; the catalog does not wait for it. */
  #toShared(texts) {
    if (!this.sharedCache || texts.length === 0) return;
    const entries = texts.filter((t) => this.cache.has(t)).map((t) => [sharedKeyOf(this.embedder, t), encodeVector(this.cache.get(t))]);
    if (entries.length === 0) return;
    const controller = new AbortController();
    Promise.resolve()
      .then(() => withTimeout(Promise.resolve(this.sharedCache.set(entries, { signal: controller.signal })), sharedCacheBound(entries.length), controller, 'set()'))
      .then(
        () => this.#sharedOutcome(),
        (error) => this.#sharedOutcome(error),
      );
  }

  /** Vectors for `texts`, in order, through the cache; batched within maxEmbeddingsPerCall. */
  async #embed(texts, timeoutMs) {
    const missing = await this.#fromShared([...new Set(texts.filter((t) => !this.cache.has(t)))]);
    const limit = this.embedder.maxEmbeddingsPerCall;
    const size = Number.isInteger(limit) && limit > 0 ? limit : 256;
    const batches = [];
    for (let i = 0; i < missing.length; i += size) batches.push(missing.slice(i, i + size));
    const run = async (values) => {
      const controller = new AbortController();
      const result = await withTimeout(Promise.resolve(this.embedder.doEmbed({ values, abortSignal: controller.signal })), timeoutMs, controller, 'an embedding call');
      const embeddings = result?.embeddings;
      if (!Array.isArray(embeddings) || embeddings.length !== values.length) {
        throw new Error(`doEmbed returned ${Array.isArray(embeddings) ? embeddings.length : describeValue(embeddings)} embeddings for ${values.length} values`);
      }
      values.forEach((text, i) => {
        const vector = Float32Array.from(embeddings[i] ?? []);
        const dim = this.dim ?? vector.length;
        if (vector.length === 0 || vector.length !== dim || !vector.every(Number.isFinite)) {
          const shared = this.dimFromShared && vector.length > 0 && vector.length !== dim;
          throw new Error(
            shared
              ? `doEmbed returned a vector of ${vector.length} values, while search.embeddingCache holds vectors of ${dim} for this model (after changing the model's output size, give the cache another keyPrefix)`
              : `doEmbed returned a vector of ${vector.length} values${this.dim ? `, not ${this.dim}` : ''} or with non-finite values`,
          );
        }
        this.dim = dim;
        remember(this.cache, text, vector, CACHE_LIMIT);
      });
    };
    if (this.embedder.supportsParallelCalls) await Promise.all(batches.map(run));
    else for (const batch of batches) await run(batch);
    this.#toShared(missing);
    return texts.map((t) => this.cache.get(t));
  }

  async #buildOverride(native, textsOf) {
    const texts = textsOf ? textsOf() : decodeTexts(native.semanticTexts());
    if (texts.length === 0) return undefined;
    const vectors = await this.#embed(texts, BATCH_TIMEOUT_MS);
    const dim = vectors[0].length;
    const rows = new Float32Array(dim * vectors.length);
    vectors.forEach((v, i) => rows.set(v, i * dim));
    const [latin, cjk, sameScript, crowdingCjk, sameScriptSpan] = module.exports.EMBEDDER_WEIGHTS;
    return native.semanticOverride(rows, dim, latin, cjk, sameScript, crowdingCjk, sameScriptSpan);
  }

  /**
   * Starts (once per catalog, again after a failure once `retryAfterMs` passed) embedding a
   * catalog's texts; the first step to start it waits for it at most `catalogWaitMs`, later
   * steps go on with the shipped vectors until it is in. `textsOf()`: the texts to embed, one
   * per document (default: the catalog's own `semanticTexts()`).
   */
  async prepare(native, textsOf) {
    let entry = this.catalogs.get(native);
    const { catalogWaitMs, retryAfterMs } = module.exports.TIMINGS;
    if (entry?.override || (entry?.failedAt && performance.now() - entry.failedAt < retryAfterMs)) return;
    if (entry?.pending) return;
    entry = { pending: undefined, override: undefined, failedAt: undefined };
    entry.pending = this.#buildOverride(native, textsOf).then(
      (override) => {
        entry.override = override;
        entry.pending = undefined;
        this.#succeeded();
      },
      (error) => {
        entry.failedAt = performance.now();
        entry.pending = undefined;
        this.#failed(error);
      },
    );
    this.catalogs.set(native, entry);
    let timer;
    const waited = new Promise((resolve) => {
      timer = setTimeout(resolve, catalogWaitMs);
      timer.unref?.();
    });
    await Promise.race([entry.pending, waited]).finally(() => clearTimeout(timer));
  }

  /** The catalog's override when its vectors are in, else undefined. */
  overrideFor(native) {
    return this.catalogs.get(native)?.override;
  }

  /** The query's vector, or undefined when the embedder fails or is slower than the bound. */
  async queryVector(query) {
    const cached = this.queries.get(query);
    if (cached) return cached;
    try {
      const controller = new AbortController();
      const result = await withTimeout(Promise.resolve(this.embedder.doEmbed({ values: [query], abortSignal: controller.signal })), this.queryTimeoutMs, controller, 'embedding the query');
      const vector = Float32Array.from(result?.embeddings?.[0] ?? []);
      if (vector.length === 0 || (this.dim !== undefined && vector.length !== this.dim) || !vector.every(Number.isFinite)) {
        throw new Error(`doEmbed returned a query vector of ${vector.length} values${this.dim ? `, not ${this.dim}` : ''} or with non-finite values`);
      }
      remember(this.queries, query, vector, QUERY_CACHE_LIMIT);
      this.#succeeded();
      return vector;
    } catch (error) {
      this.#failed(error);
      return undefined;
    }
  }
}

module.exports = { embedderOptionsOf, EmbedderSide, sharedKeyOf, encodeVector, decodeVector, DEFAULT_QUERY_TIMEOUT_MS, EMBEDDER_WEIGHTS, TIMINGS };
