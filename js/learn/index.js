'use strict';
// ToolSearchProcessor's `learn` option: past requests the model served with a catalog tool
// become evidence for requests like them. The signal is read from the step's messages (a
// tool-invocation part in state 'result' is a call whose execute returned; a throw reads as
// 'output-error'); the evidence is a separate index of past requests (store.js) whose nearest
// examples vote for their tools. A tool's own text and the zero-shot ranking are never changed:
// a request with no similar past request ranks exactly as without learning.

const { encodeTexts } = require('../lossless.js');
const { shortDescription } = require('../util.js');
const { userTexts } = require('../preload.js');
const { featuresOf } = require('./features.js');
const { InMemoryLearnStore, SEED_PARTITION } = require('./store.js');
// learnstore (hook): a shared learning store is a log every process replays into its index.
const { LearnSync } = require('./sync.js');
const { encodePayload, decodePayload } = require('./payload.js');

const META_TOOLS = new Set(['search_tools', 'load_tool']);
const GLOBAL_PARTITION = '\u0000global';
/** Nearest past requests that vote. */
const NEIGHBOURS = 10;
/** Pseudo-weight against the votes: one weak neighbour is not a confident answer. */
const VOTE_PRIOR = 0.25;
/** Call ids already learned, remembered so a conversation's history is not learned again. */
const SEEN_CALLS = 50_000;

/**
 * The request's resource (user): `mastra__resourceId`, else the memory's resource, else
 * undefined (learning then neither learns from nor, in scope 'resource', serves the request).
 */
function resourceIdOf(requestContext) {
  if (!requestContext || typeof requestContext.get !== 'function') return undefined;
  const explicit = requestContext.get('mastra__resourceId');
  if (typeof explicit === 'string' && explicit) return explicit;
  const memory = requestContext.get('MastraMemory');
  const fromMemory = memory?.resourceId ?? memory?.thread?.resourceId;
  return typeof fromMemory === 'string' && fromMemory ? fromMemory : undefined;
}

/** Whether a tool result is Mastra's input-validation failure (returned, not thrown). */
function isValidationFailure(result) {
  return result !== null && typeof result === 'object' && result.error === true;
}

class ToolLearning {
  #config;
  #store;
  #seen = new Set();
  /** learnstore (hook): the shared store's sync, or undefined for 'in-memory'. */
  #sync;

  constructor(config, getLogger) {
    this.#config = config;
    // (the in-process index always answers queries; a shared store only feeds it)
    this.#store = new InMemoryLearnStore(config);
    if (config.store !== 'in-memory') this.#sync = new LearnSync(config.store, { apply: (record) => this.#applyRecord(record), getLogger }); // learnstore (hook)
    const now = Date.now();
    for (const [tool, request] of config.seed) {
      const features = featuresOf(request);
      if (features) this.#store.add(SEED_PARTITION, { tool, resource: SEED_PARTITION, features }, now);
    }
  }

  #partitionOf(resource) {
    return this.#config.scope === 'global' ? GLOBAL_PARTITION : `r:${resource}`;
  }

  /** The catalog tool `name` resolves to, as `{ name, tool, handle }` (the canonical name), or undefined. */
  #resolve(catalog, name, preferId) {
    if (typeof name !== 'string' || META_TOOLS.has(name)) return undefined;
    const handle = catalog.native.resolve(encodeTexts([name]), preferId)[0];
    if (handle < 0) return undefined;
    return { name: catalog.idAt(handle) ?? catalog.keyAt(handle), tool: catalog.toolAt(handle), handle };
  }

  /**
   * Learns the step's successful catalog-tool calls, each attributed to the last user message
   * before it. `allowed(tool)` is the filter's verdict (a denied tool is never learned).
   */
  async observe(args, catalog, preferId, allowed) {
    // learnstore (hook): what other processes learned, before this step uses the index; during
    // a store outage nothing is learned (the store would miss it).
    if (this.#sync) {
      await this.#sync.pull();
      if (!this.#sync.healthy) return;
    }
    const resource = resourceIdOf(args.requestContext);
    if (resource === undefined || !Array.isArray(args.messages)) return;
    const thread = String(args.requestContext.get('mastra__threadId') ?? args.requestContext.get('MastraMemory')?.thread?.id ?? '');
    let request = '';
    for (const message of args.messages) {
      if (!message || typeof message !== 'object') continue;
      if (message.role === 'user') {
        request = userTexts([message])[0];
        continue;
      }
      if (message.role !== 'assistant' || !request) continue;
      const parts = Array.isArray(message.content?.parts) ? message.content.parts : [];
      for (const part of parts) {
        const call = part?.type === 'tool-invocation' ? part.toolInvocation : undefined;
        if (!call || call.state !== 'result' || isValidationFailure(call.result)) continue;
        // (call ids repeat across runs with some models: the thread and tool narrow them)
        const seenKey = `${resource}\u0000${thread}\u0000${call.toolName}\u0000${call.toolCallId}`;
        if (typeof call.toolCallId !== 'string' || this.#seen.has(seenKey)) continue;
        this.#remember(seenKey);
        const found = this.#resolve(catalog, call.toolName, preferId);
        if (!found || !(await allowed(found.tool))) continue;
        const features = featuresOf(request);
        if (features) this.#learn(this.#partitionOf(resource), found.name, resource, features);
      }
    }
  }

  /** learnstore (hook): into the index now (read-your-writes), and to the shared store. */
  #learn(partition, tool, resource, features) {
    const time = Date.now();
    this.#store.add(partition, { tool, resource, features }, time);
    this.#sync?.push({ type: 'example', partition, resource, tool, time, payload: encodePayload(features) });
  }

  /**
   * learnstore (hook): another process's record into the index. Checked (a store is not a trust
   * boundary): examples only for this scope's partitions (never seeds), with a readable payload.
   */
  #applyRecord(record) {
    const type = record.type ?? 'example';
    if (type === 'clear') {
      this.#seen.clear();
      this.#store.clear();
      return;
    }
    if (typeof record.resource !== 'string') return;
    if (type === 'forget') {
      this.#forgetSeen(record.resource);
      this.#store.forgetResource(record.resource);
      return;
    }
    if (type !== 'example' || typeof record.tool !== 'string' || !record.tool || typeof record.partition !== 'string') return;
    if (record.partition !== this.#partitionOf(record.resource)) return;
    const features = decodePayload(record.payload);
    if (!features || typeof record.time !== 'number' || !Number.isFinite(record.time)) return;
    this.#store.add(record.partition, { tool: record.tool, resource: record.resource, features }, Math.min(record.time, Date.now()));
  }

  #forgetSeen(resourceId) {
    for (const key of [...this.#seen]) if (key.startsWith(`${resourceId}\u0000`)) this.#seen.delete(key);
  }

  #remember(key) {
    this.#seen.add(key);
    if (this.#seen.size > SEEN_CALLS) this.#seen.delete(this.#seen.values().next().value);
  }

  /**
   * The learned confidence of each tool for `query`: `Map<name, confidence>` (empty when no past
   * request is similar enough). Votes: each of the nearest past requests votes for its tool
   * with its similarity, decayed by age; a resource counts once per tool (its best vote). In
   * scope 'global', votes from other resources count only once `minResources` distinct
   * resources (seeds count as enough) agree on the tool; a resource's own votes always count.
   */
  votes(query, requestContext) {
    const out = new Map();
    const features = featuresOf(query);
    if (!features) return out;
    const { scope, minResources, minSimilarity, halfLifeMs } = this.#config;
    const resource = resourceIdOf(requestContext);
    const partitions = [SEED_PARTITION];
    if (scope === 'global') partitions.push(GLOBAL_PARTITION);
    else if (resource !== undefined) partitions.push(this.#partitionOf(resource));
    const found = partitions
      .flatMap((p) => this.#store.neighbours(p, features, NEIGHBOURS, minSimilarity))
      .sort((a, b) => b.similarity - a.similarity)
      .slice(0, NEIGHBOURS);
    if (found.length === 0) return out;
    const now = Date.now();
    const perTool = new Map(); // tool -> Map(resource -> best weight)
    for (const { tool, resource: from, similarity, time, seed } of found) {
      const weight = similarity * (seed || !(halfLifeMs > 0) ? 1 : Math.pow(0.5, Math.max(0, now - time) / halfLifeMs));
      let byResource = perTool.get(tool);
      if (!byResource) perTool.set(tool, (byResource = new Map()));
      byResource.set(from, Math.max(byResource.get(from) ?? 0, weight));
    }
    const weights = new Map();
    let total = 0;
    for (const [tool, byResource] of perTool) {
      let weight = 0;
      const trusted = scope === 'resource' || byResource.has(SEED_PARTITION) || byResource.size >= minResources;
      for (const [from, w] of byResource) {
        if (trusted || from === resource) weight += w;
        // (an untrusted vote still speaks against the other tools)
        total += w;
      }
      if (weight > 0) weights.set(tool, weight);
    }
    for (const [tool, weight] of weights) out.set(tool, weight / (total + VOTE_PRIOR));
    return out;
  }

  /** The tools learning vouches for (confidence at least `minConfidence`), best first: `[{ name, confidence }]`. */
  #strong(query, requestContext) {
    const strong = [];
    for (const [name, confidence] of this.votes(query, requestContext)) {
      if (confidence >= this.#config.minConfidence) strong.push({ name, confidence });
    }
    return strong.sort((a, b) => b.confidence - a.confidence || (a.name < b.name ? -1 : 1));
  }

  /**
   * Preload's ranking with learned evidence: a tool learning vouches for takes the larger of its
   * two confidences (joining the ranking if the search missed it) and is marked `learned`; the
   * ranking is then re-sorted by confidence. Unchanged when nothing learned is similar.
   */
  preloadRanking(ranking, catalog, requestContext, query, preferId) {
    const strong = this.#strong(query, requestContext);
    if (strong.length === 0) return { ...ranking, learned: new Set() };
    const rows = ranking.results.map((result, i) => ({ result, tool: ranking.tools[i], confidence: ranking.confidences[i] }));
    const learned = new Set();
    for (const { name, confidence } of strong) {
      const found = this.#resolve(catalog, name, preferId);
      if (!found) continue;
      learned.add(found.name);
      const row = rows.find((r) => r.result.name === found.name);
      if (row) row.confidence = Math.max(row.confidence, confidence);
      else rows.push({ result: { name: found.name, description: shortDescription(catalog.descriptionAt(found.handle)), score: 0 }, tool: found.tool, confidence });
    }
    rows.sort((a, b) => b.confidence - a.confidence);
    return { results: rows.map((r) => r.result), tools: rows.map((r) => r.tool), confidences: rows.map((r) => r.confidence), learned };
  }

  /**
   * search_tools' results with learned evidence (enhanced and hybrid modes): the tools learning
   * vouches for come first, best first (one the search missed joins if the filter's 'search'
   * phase allows it, shown with the best score), the rest keep their order; at most `topK`.
   */
  async rerank(found, catalog, requestContext, query, preferId, topK, allowed) {
    const strong = this.#strong(query, requestContext);
    if (strong.length === 0 || topK === 0) return found;
    // (a tool the search missed entirely is shown with the best score, or 1 when nothing matched)
    const top = found.results[0]?.score ?? 1;
    const front = [];
    for (const { name } of strong) {
      const at = found.results.findIndex((r) => r.name === name);
      if (at >= 0) {
        front.push({ result: { ...found.results[at], score: Math.max(found.results[at].score, top) }, tool: found.tools[at] });
        continue;
      }
      const resolved = this.#resolve(catalog, name, preferId);
      if (!resolved || found.results.some((r) => r.name === resolved.name) || !(await allowed(resolved.tool))) continue;
      front.push({ result: { name: resolved.name, description: shortDescription(catalog.descriptionAt(resolved.handle)), score: top }, tool: resolved.tool });
    }
    if (front.length === 0) return found;
    const names = new Set(front.map((f) => f.result.name));
    const rest = found.results.map((result, i) => ({ result, tool: found.tools[i] })).filter((r) => !names.has(r.result.name));
    const rows = [...front, ...rest].slice(0, topK);
    return { ...found, results: rows.map((r) => r.result), tools: rows.map((r) => r.tool) };
  }

  /**
   * Forgets what `resourceId` taught (every partition); resolves how many examples went (with a
   * shared store: how many records the store deleted; every process drops them too).
   */
  async forgetResource(resourceId) {
    this.#forgetSeen(resourceId);
    const removed = this.#store.forgetResource(resourceId);
    return this.#sync ? this.#sync.forgetResource(resourceId) : removed; // learnstore (hook)
  }

  /** Forgets every learned example (seeds, which are configuration, stay), in every process with a shared store. */
  async forgetAll() {
    this.#seen.clear();
    this.#store.clear();
    if (this.#sync) await this.#sync.clear(); // learnstore (hook)
  }

  stats() {
    // learnstore (hook): which store, and when its last outage began
    const store = this.#sync ? { store: this.#sync.kind, lastOutage: this.#sync.lastOutage } : { store: 'in-memory', lastOutage: null };
    return { scope: this.#config.scope, ...this.#store.stats(), ...store };
  }

  /** learnstore (hook): stops the shared store's background retry. */
  dispose() {
    this.#sync?.dispose();
  }
}

module.exports = { ToolLearning, resourceIdOf };
