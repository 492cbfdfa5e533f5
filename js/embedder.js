'use strict';
// `search.embedder` (ours, 'hybrid'): the user's own AI SDK EmbeddingModel (what Mastra's memory
// `embedder` takes, e.g. openai.embedding('text-embedding-3-small')) on the semantic side of the
// fusion, in place of the shipped model's vectors. Tool texts are embedded once per catalog,
// batched within `maxEmbeddingsPerCall` and cached by text (per embedder object, across
// processors; with `search.embeddingCache`, also between processes); each search embeds its
// query once (a small cache answers repeats, such as preload's search and the model's own). An
// embedder that fails, times out or answers with the wrong shape never fails a step: the search
// uses the shipped model's vectors (or, without the model package, the lexical ranking alone),
// with one warning per outage (as the stores do), and the embedder is tried again later. While
// it is known to be failing (its last call threw or timed out and none worked since), no step
// waits for it: it is retried in the background, one call at a time.

const { describeValue, textKey } = require('./util.js');
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
/**
 * The vectors cached per embedder (tool texts), oldest dropped first: at most `texts` texts and
 * `bytes` bytes of vectors — 10,000 tools of 3,072 values fit (~123 MB); 50,000 texts of 8,192
 * values (1.6 GB) do not. A catalog being embedded never depends on the cache keeping its
 * vectors (see #embed): the bound only costs re-embedding after a catalog changes.
 */
const CACHE_BOUNDS = { texts: 50_000, bytes: 256 * 1024 * 1024 };
const QUERY_CACHE_LIMIT = 256;
/**
 * Longer queries are cached under their hash, so the query cache holds at most 256 keys of
 * 258 characters and 256 vectors of at most MAX_DIMENSIONS values (~8.5 MB), whatever the
 * messages' size.
 */
const QUERY_KEY_CHARS = 256;
/**
 * The longest vector taken (an embedder's or the shared cache's): common models answer 384 to
 * 3,072 values; 100,000 values would cost ~1.5 MB per tool.
 */
const MAX_DIMENSIONS = 8192;
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
  // (base64 of MAX_DIMENSIONS floats is at most this long: nothing longer is decoded)
  if (typeof value !== 'string' || value === '' || value.length > Math.ceil((MAX_DIMENSIONS * 4 * 4) / 3) + 4) return undefined;
  const bytes = Buffer.from(value, 'base64');
  if (bytes.length === 0 || bytes.length % 4 !== 0) return undefined;
  const vector = new Float32Array(bytes.length / 4);
  if (LITTLE_ENDIAN) new Uint8Array(vector.buffer).set(bytes);
  else for (let i = 0; i < vector.length; i++) vector[i] = bytes.readFloatLE(i * 4);
  return vectorProblem(vector, undefined) === undefined ? vector : undefined;
}

/**
 * What makes `vector` (a Float32Array) unusable as an embedding of `dim` values (undefined: any
 * length), as a phrase, or undefined. A degenerate vector (all zero, all components equal, or a
 * norm near zero) is refused like a malformed one: it has no direction, so its cosines rank
 * nothing (a constant vector is at the same angle to every text; constant answers halved recall@5).
 */
function vectorProblem(vector, dim) {
  const sizeProblem = lengthProblem(vector.length, dim);
  if (sizeProblem) return sizeProblem;
  let min = Infinity;
  let max = -Infinity;
  let squares = 0;
  for (const x of vector) {
    if (!Number.isFinite(x)) return 'a vector with non-finite values';
    if (x < min) min = x;
    if (x > max) max = x;
    squares += x * x;
  }
  const scale = Math.max(Math.abs(min), Math.abs(max));
  if (Math.sqrt(squares) < 1e-6 || max - min <= 1e-6 * scale) return 'a degenerate vector (all zero, all components equal, or a norm near zero)';
  return undefined;
}
function lengthProblem(length, dim) {
  if (length === 0) return 'a vector of no values';
  if (length > MAX_DIMENSIONS) return `a vector of ${length} values, more than the ${MAX_DIMENSIONS} values this package takes`;
  if (dim !== undefined && length !== dim) return `a vector of ${length} values, not ${dim}`;
  return undefined;
}

/** `raw` (an embedder's answer for one text) as a Float32Array of `dim` values; throws saying what is wrong. */
function checkedVector(raw, dim, forWhat) {
  const length = raw && typeof raw === 'object' && Number.isInteger(raw.length) ? raw.length : 0;
  // The length is checked before copying: a runaway answer is not copied again.
  const sizeProblem = lengthProblem(length, dim);
  if (sizeProblem) throw new Error(`doEmbed returned ${sizeProblem}${forWhat}`);
  const vector = Float32Array.from(raw);
  const problem = vectorProblem(vector, dim);
  if (problem) throw new Error(`doEmbed returned ${problem}${forWhat}`);
  return vector;
}

/** The query cache's key: the query itself, or the hash of a long one (see QUERY_KEY_CHARS). */
function queryKeyOf(query) {
  return textKey(query, QUERY_KEY_CHARS);
}

/**
 * Per embedder object: `vectors` (text -> Float32Array, in insertion order, oldest evicted first)
 * and `dim`, the vectors' length as the embedder's own answers tell it (never the shared
 * cache's: a stale value there must not decide which of the model's answers are valid).
 */
const states = new WeakMap();
function stateOf(embedder) {
  let state = states.get(embedder);
  if (!state) states.set(embedder, (state = { vectors: new Map(), bytes: 0, dim: undefined }));
  return state;
}
/** Keeps `vector` under `text` in `cache`, dropping the oldest entries past `limit` texts or `byteLimit` bytes. */
function remember(cache, text, vector, limit, byteLimit = Infinity, account = { bytes: 0 }) {
  const old = cache.get(text);
  if (old) account.bytes -= old.byteLength;
  cache.delete(text);
  cache.set(text, vector);
  account.bytes += vector.byteLength;
  while (cache.size > limit || (account.bytes > byteLimit && cache.size > 1)) {
    const [oldest, dropped] = cache.entries().next().value;
    account.bytes -= dropped.byteLength;
    cache.delete(oldest);
  }
}

/**
 * `promise`, or a rejection after `ms`; aborts `controller` then. With `keepAlive` (a step
 * waits for it) the timer keeps Node alive until then: a script whose only pending work is
 * this step must not exit mid-request. Background work's timers never keep Node alive.
 */
function withTimeout(promise, ms, controller, what, keepAlive) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`${what} took longer than ${ms} ms`));
    }, ms);
    if (!keepAlive) timer.unref?.();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Whether `promise` settled within `ms` (a timer that keeps Node alive: a step waits). */
function settlesWithin(promise, ms) {
  let timer;
  const expired = new Promise((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([promise.then(() => true), expired]).finally(() => clearTimeout(timer));
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
    this.queryTimeoutMs = queryTimeoutMs;
    this.getLogger = getLogger;
    this.label = label;
    this.state = stateOf(embedder);
    /** query key (see queryKeyOf) -> Float32Array */
    this.queries = new Map();
    /** native catalog -> { override?, pending?, failedAt? } */
    this.catalogs = new WeakMap();
    /** An outage: the last call threw or timed out and none worked since (one warning each). */
    this.failing = false;
    /** Catalog builds and query calls in flight: during an outage, at most one at a time. */
    this.busy = 0;
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
   * What the shared cache holds for `texts`: text -> vector (any length: only the embedder
   * tells which length is right), without the texts it has no vector for.
   */
  async #fromShared(texts) {
    const found = new Map();
    if (!this.sharedCache || texts.length === 0) return found;
    let values;
    try {
      const controller = new AbortController();
      const keys = texts.map((t) => sharedKeyOf(this.embedder, t));
      values = await withTimeout(Promise.resolve(this.sharedCache.get(keys, { signal: controller.signal })), sharedCacheBound(keys.length), controller, 'get()', false);
      if (!Array.isArray(values) || values.length !== texts.length) {
        throw new Error(`get() returned ${Array.isArray(values) ? `${values.length} values` : describeValue(values)} for ${texts.length} keys`);
      }
      this.#sharedOutcome();
    } catch (error) {
      this.#sharedOutcome(error);
      return found;
    }
    texts.forEach((text, i) => {
      const vector = decodeVector(values[i]);
      if (vector) found.set(text, vector);
    });
    return found;
  }

  /** Writes freshly embedded vectors to the shared cache; the catalog does not wait for it. */
  #toShared(texts) {
    const local = this.state.vectors;
    if (!this.sharedCache || texts.length === 0) return;
    const entries = texts.filter((t) => local.has(t)).map((t) => [sharedKeyOf(this.embedder, t), encodeVector(local.get(t))]);
    if (entries.length === 0) return;
    const controller = new AbortController();
    Promise.resolve()
      .then(() => withTimeout(Promise.resolve(this.sharedCache.set(entries, { signal: controller.signal })), sharedCacheBound(entries.length), controller, 'set()', false))
      .then(
        () => this.#sharedOutcome(),
        (error) => this.#sharedOutcome(error),
      );
  }

  /**
   * One doEmbed call for `values`, bounded by `timeoutMs`: their vectors, checked (count,
   * length, finite, not degenerate, at most MAX_DIMENSIONS). The first valid answer fixes the
   * embedder's vector length.
   */
  async #doEmbed(values, timeoutMs, what, keepAlive) {
    const controller = new AbortController();
    const result = await withTimeout(
      Promise.resolve().then(() => this.embedder.doEmbed({ values, abortSignal: controller.signal })),
      timeoutMs,
      controller,
      what,
      keepAlive,
    );
    const embeddings = result?.embeddings;
    if (!Array.isArray(embeddings) || embeddings.length !== values.length) {
      throw new Error(`doEmbed returned ${Array.isArray(embeddings) ? embeddings.length : describeValue(embeddings)} embeddings for ${values.length} values`);
    }
    const forWhat = values.length === 1 && what === 'embedding the query' ? ' for the query' : '';
    const first = checkedVector(embeddings[0], this.state.dim, forWhat);
    const vectors = [first, ...embeddings.slice(1).map((raw) => checkedVector(raw, first.length, forWhat))];
    // (parallel batches of a new embedder: the first to answer fixes the length)
    if (this.state.dim !== undefined && this.state.dim !== first.length) throw new Error(`doEmbed returned ${lengthProblem(first.length, this.state.dim)}${forWhat}`);
    this.state.dim = first.length;
    return vectors;
  }

  /** Embeds `texts` into `found` (text -> vector) and the local cache, batched within maxEmbeddingsPerCall. */
  async #embedBatches(texts, found) {
    const limit = this.embedder.maxEmbeddingsPerCall;
    const size = Number.isInteger(limit) && limit > 0 ? limit : 256;
    const batches = [];
    for (let i = 0; i < texts.length; i += size) batches.push(texts.slice(i, i + size));
    const run = async (values) => {
      const vectors = await this.#doEmbed(values, BATCH_TIMEOUT_MS, 'an embedding call', false);
      values.forEach((text, i) => {
        found.set(text, vectors[i]);
        this.#cache(text, vectors[i]);
      });
    };
    if (this.embedder.supportsParallelCalls) await Promise.all(batches.map(run));
    else for (const batch of batches) await run(batch);
  }

  /**
   * Vectors for `texts`, in order: from the local cache, else the shared cache, else the
   * embedder. A shared value of another length than the embedder's answers is a miss:
   * embedded again and rewritten.
   */
  async #embed(texts) {
    const local = this.state.vectors;
    // (what this call found, apart from the cache: a large catalog may push its own first
    // vectors out of the bounded cache before its last ones are in)
    const found = new Map();
    for (const t of texts) if (local.has(t)) found.set(t, local.get(t));
    const wanted = [...new Set(texts.filter((t) => !found.has(t)))];
    // Before the embedder first answered, one text is embedded while the shared cache is read:
    // the vectors' length comes from the model, never from the cache (its values may be stale).
    const probe = this.sharedCache && this.state.dim === undefined && wanted.length > 0 ? wanted[0] : undefined;
    const rest = probe === undefined ? wanted : wanted.slice(1);
    const [shared] = await Promise.all([this.#fromShared(rest), probe === undefined ? undefined : this.#embedBatches([probe], found)]);
    const missing = rest.filter((t) => !shared.has(t));
    for (const [text, vector] of shared) {
      if (vector.length === this.state.dim) {
        found.set(text, vector);
        this.#cache(text, vector);
      } else missing.push(text);
    }
    await this.#embedBatches(missing, found);
    this.#toShared(probe === undefined ? missing : [probe, ...missing], found);
    return texts.map((t) => found.get(t));
  }

  #cache(text, vector) {
    remember(this.state.vectors, text, vector, CACHE_BOUNDS.texts, CACHE_BOUNDS.bytes, this.state);
  }

  async #buildOverride(native, textsOf) {
    const texts = textsOf ? textsOf() : decodeTexts(native.semanticTexts());
    if (texts.length === 0) return undefined;
    const vectors = await this.#embed(texts);
    const dim = this.state.dim;
    if (vectors.some((v) => v?.length !== dim)) throw new Error('a vector of this catalog went missing or changed length while it was embedded');
    const rows = new Float32Array(dim * vectors.length);
    vectors.forEach((v, i) => rows.set(v, i * dim));
    const [latin, cjk, sameScript, crowdingCjk, sameScriptSpan] = module.exports.EMBEDDER_WEIGHTS;
    return native.semanticOverride(rows, dim, latin, cjk, sameScript, crowdingCjk, sameScriptSpan);
  }

  /**
   * Starts (once per catalog, again after a failure once `retryAfterMs` passed) embedding a
   * catalog's texts; the first step to start it waits for it at most `catalogWaitMs`, later
   * steps go on with the shipped vectors until it is in. During an outage no step waits: the
   * catalog is embedded in the background, while no other call of this embedder is under way.
   * A wait that runs out starts an outage. `textsOf()`: the texts to embed, one per document
   * (default: the catalog's own `semanticTexts()`).
   */
  async prepare(native, textsOf) {
    let entry = this.catalogs.get(native);
    const { catalogWaitMs, retryAfterMs } = module.exports.TIMINGS;
    if (entry?.override || entry?.pending) return;
    if (entry?.failedAt !== undefined && performance.now() - entry.failedAt < retryAfterMs) return;
    const outage = this.failing;
    if (outage && this.busy > 0) return;
    entry = { pending: undefined, override: undefined, failedAt: undefined };
    this.busy++;
    entry.pending = this.#buildOverride(native, textsOf).then(
      (override) => {
        entry.override = override;
        entry.pending = undefined;
        this.busy--;
        this.#succeeded();
      },
      (error) => {
        entry.failedAt = performance.now();
        entry.pending = undefined;
        this.busy--;
        this.#failed(error);
      },
    );
    this.catalogs.set(native, entry);
    if (outage) return;
    if (!(await settlesWithin(entry.pending, catalogWaitMs))) this.#failed(new Error(`embedding the catalog took longer than ${catalogWaitMs} ms`));
  }

  /** The catalog's override when its vectors are in, else undefined. */
  overrideFor(native) {
    return this.catalogs.get(native)?.override;
  }

  /**
   * The query's vector, or undefined when the embedder fails or is slower than the bound.
   * During an outage the search does not wait: the query is embedded in the background (when
   * no other call is under way), and its vector answers the query's next search.
   */
  async queryVector(query) {
    const key = queryKeyOf(query);
    const cached = this.queries.get(key);
    if (cached) return cached;
    if (!this.failing) return this.#embedQuery(query, key, true);
    if (this.busy === 0) this.#embedQuery(query, key, false);
    return undefined;
  }

  /** Embeds a query into the query cache; never rejects. `keepAlive`: a step waits for it. */
  async #embedQuery(query, key, keepAlive) {
    this.busy++;
    try {
      const [vector] = await this.#doEmbed([String(query)], this.queryTimeoutMs, 'embedding the query', keepAlive);
      remember(this.queries, key, vector, QUERY_CACHE_LIMIT);
      this.#succeeded();
      return vector;
    } catch (error) {
      this.#failed(error);
      return undefined;
    } finally {
      this.busy--;
    }
  }

  /** Frees the query cache and the catalogs' vectors (the processor is disposed; a later use starts afresh). */
  dispose() {
    this.queries.clear();
    this.catalogs = new WeakMap();
  }
}

module.exports = { embedderOptionsOf, EmbedderSide, sharedKeyOf, encodeVector, decodeVector, DEFAULT_QUERY_TIMEOUT_MS, EMBEDDER_WEIGHTS, MAX_DIMENSIONS, TIMINGS, CACHE_BOUNDS, cachedBytesOf: (embedder) => stateOf(embedder).bytes };
