'use strict';
// ToolSearchProcessor: the Mastra-facing layer. Tool objects, meta-tools, the filter hook
// and MessageList stay in JavaScript; the catalog (BM25 search, name resolution,
// suggestions) and the loaded-name stores live in Rust and are addressed by handle.
//
// Beside this file: messages.js (what the model reads), options.js (option checks),
// catalog.js (reading and indexing tools) and state.js (loaded names per `storage`).

const preloadShared = require('../preload.js');
const { EmbedderSide } = require('../embedder.js');
const { hostModulesOf } = require('../host-modules.js');
const native = require('../native.js');
const { isThenable, sameStrings, shortDescription } = require('../util.js');
const { resolveThreadIdFor, threadKey } = require('../thread-id.js');
const { decodeText, decodeTexts, encodeText, encodeTexts } = require('../lossless.js');
const { host } = require('../host.js');
const messages = require('./messages.js');
const { normalizeOptions } = require('./options.js');
const { Catalog, buildStaticCatalog, hybridModelFor, nativeStrings, nativeTools } = require('./catalog.js');
const { overlayOffThread, readResolvedTools, readStaticTools, unfilteredResults } = require('./catalog.js');
const { ContextNames, InMemoryNames, SharedNames, namesFromMessages, awaitedCallNames } = require('./state.js');
const { suspendedThreadMessages } = require('../persisted-thread.js');
// learn (hook): learning from use, js/learn/
const { ToolLearning } = require('../learn/index.js');

const { META_TOOL_NAMES, schemasFor } = messages;

/**
 * The confidence preload (and a search's loads) needs for a tool whose description is over three
 * times the catalog's average length: real catalogs have such tools, and a description stuffed
 * with the words requests are made of is one (bench/hostile-tools.mjs). A floor for every hit
 * would cost model calls (on MetaTool's tuning half, 0.1 below the best hit: hybrid + preload
 * 1.57 -> 1.70 calls per solved task), so it applies to these outliers only.
 */
const LONG_DESCRIPTION_MIN_CONFIDENCE = 0.2;

/** The request's thread id, read as the installed host reads it (see thread-id.js). */
function threadIdOf(requestContext) {
  return resolveThreadIdFor(requestContext, host.capabilities.toolSearchMemoryThread);
}

class ToolSearchProcessor {
  #config;
  #store;
  /** The static catalog; undefined while it builds off-thread. */
  #staticCatalog;
  /** While the static catalog builds off-thread: settles (never rejects) when it is done. */
  #staticBuild;
  /** Why the off-thread build failed (every step then rejects with it). */
  #staticBuildError;
  #overlayCache; // { keys, ids, descriptions, params, native | ready, memo } of the last request-resolved catalog
  #disposed = false;
  /** `storage: <store>`: the guarded shared store (SharedNames), else undefined. */
  #shared;
  /** `search.embedder` (ours): the user's EmbeddingModel on the semantic side, or undefined. */
  #embedder;
  /** The search mode whose confidence model preload uses (see the constructor). */
  #preloadMode;
  /** The Mastra logger once registered (store outage warnings), else console. */
  #logger;
  /** The Mastra instance once registered: its storage holds the threads resumes read back. */
  #mastra;
  /** Whether the warning that a resume cannot find the loaded tools was given. */
  #warnedResume = false;
  /** learn (hook): `options.learn`'s ToolLearning, or undefined when off. */
  #learning;

  constructor(options) {
    const config = normalizeOptions(options);
    this.id = 'tool-search';
    this.name = 'Tool Search Processor';
    this.description = 'Enables dynamic tool discovery and loading via search';
    const staticPart = readStaticTools(config.tools, config.mode !== 'compatible');
    this.#config = config;
    const model = config.mode === 'hybrid' ? hybridModelFor(config) : undefined;
    // Hybrid through a user's embedder alone: preload's confidence is then enhanced mode's,
    // over the lexical ranking (its hybrid model reads the shipped model's cosines).
    this.#preloadMode = config.mode === 'hybrid' && !model ? 'enhanced' : config.mode;
    const built = buildStaticCatalog(staticPart, model);
    if (built instanceof native.NativeToolCatalog) {
      this.#staticCatalog = new Catalog(built, staticPart, undefined);
    } else {
      // Settled into fields, so a build nobody awaits cannot become an unhandled rejection.
      this.#staticBuild = built.then(
        (nativeCatalog) => {
          this.#staticCatalog = new Catalog(nativeCatalog, staticPart, undefined);
        },
        (error) => {
          this.#staticBuildError = new Error(`ToolSearchProcessor: building the tool catalog failed: ${decodeText(error.message)}`);
        },
      );
    }
    if (config.storage === 'context') this.#store = new ContextNames();
    else if (config.storage === 'in-memory') this.#store = new InMemoryNames(config.ttl);
    else this.#store = this.#shared = new SharedNames(config.storage, config.ttl, () => this.#logger);
    if (config.learn) this.#learning = new ToolLearning(config.learn, model, () => this.#logger); // learn (hook; the logger: the store's outage warning)
    if (config.embedder) {
      const fallback = model ? "the shipped model's vectors" : 'the lexical ranking alone';
      this.#embedder = new EmbedderSide(config.embedder, () => this.#logger, 'ToolSearchProcessor', fallback);
    }
  }

  /** Called by Mastra when the processor is registered: its logger receives store warnings. */
  __registerMastra(mastra) {
    if (mastra && typeof mastra === 'object') this.#mastra = mastra;
    const logger = typeof mastra?.getLogger === 'function' ? mastra.getLogger() : undefined;
    if (logger && typeof logger.warn === 'function') this.#logger = logger;
  }

  #assertLive() {
    if (this.#disposed) throw new Error('ToolSearchProcessor: this processor has been disposed.');
  }

  /**
   * The static catalog, waiting for its off-thread build. Every public method that searches
   * or resolves names is async, so none has to block the event loop on the build.
   */
  async #builtStaticCatalog() {
    await this.#staticBuild;
    if (this.#staticBuildError) throw this.#staticBuildError;
    this.#assertLive();
    return this.#staticCatalog;
  }

  /** The searchable set for one step: static tools, plus the request's tools when enabled. */
  async #catalogForStep(stepTools) {
    const base = this.#staticCatalog ?? (await this.#builtStaticCatalog());
    if (!this.#config.includeResolvedTools) return base;
    const resolved = readResolvedTools(stepTools, this.#config.mode !== 'compatible');
    if (resolved.keys.length === 0) return base;
    // Rust only sees strings, so an index built for identical keys/ids/descriptions can be
    // reused; the tool instances always come from this request (`resolved.tools`).
    let cache = this.#overlayCache;
    if (
      !(
        cache &&
        sameStrings(cache.keys, resolved.keys) &&
        sameStrings(cache.ids, resolved.ids) &&
        sameStrings(cache.descriptions, resolved.descriptions) &&
        (!resolved.params || sameStrings(cache.params, resolved.params))
      )
    ) {
      const crossing = nativeStrings(resolved);
      const overlayArgs = [base.native, nativeTools(crossing), base.static.tools.length];
      // Strings only: the cache must not keep one request's tool instances alive.
      const { keys, ids, descriptions, params } = resolved;
      cache = { keys, ids, descriptions, params, native: undefined, ready: undefined, memo: {} };
      if (overlayOffThread(base.size, keys.length, params !== undefined)) {
        // Concurrent steps with the same tools share one build; a failed one is not cached.
        const entry = cache;
        entry.ready = native.NativeToolCatalog.overlayAsync(...overlayArgs).then(
          (overlay) => {
            entry.native = overlay;
          },
          (error) => {
            if (this.#overlayCache === entry) this.#overlayCache = undefined;
            throw new Error(`ToolSearchProcessor: building the request's tool catalog failed: ${decodeText(error.message)}`);
          },
        );
      } else {
        cache.native = native.NativeToolCatalog.overlay(...overlayArgs);
      }
      this.#overlayCache = cache;
    }
    if (cache.native === undefined) {
      await cache.ready;
      this.#assertLive();
    }
    return new Catalog(cache.native, base.static, resolved, cache.memo);
  }

  /** The user's filter, fail-closed: a throw, a rejection or anything but `true` denies. */
  async #isAllowed(tool, requestContext, phase) {
    const filter = this.#config.filter;
    if (!filter) return true;
    try {
      let verdict = filter({ toolName: tool.id, tool, requestContext, phase });
      if (isThenable(verdict)) verdict = await verdict;
      return verdict === true;
    } catch {
      return false;
    }
  }

  /**
   * The injectCatalog rows of a catalog, derived once per catalog (its strings never
   * change): without a filter the finished text; with one, per key the tool to ask the
   * filter about and the line to print when it allows.
   */
  #listingOf(catalog) {
    const memo = catalog.memo;
    if (memo.listing) return memo.listing;
    const withFilter = this.#config.filter !== undefined;
    // The host resolves each key as load_tool does: key first, id first with a filter.
    const rows = catalog.native.listing(withFilter);
    const { keyHandles, toolHandles, docHandles } = rows;
    const lines = new Array(keyHandles.length);
    for (let i = 0; i < keyHandles.length; i++) {
      const name = catalog.idAt(toolHandles[i]) ?? catalog.keyAt(keyHandles[i]);
      const description = docHandles[i] < 0 ? '' : shortDescription(catalog.descriptionAt(docHandles[i]));
      lines[i] = messages.toolLine(name, description);
    }
    memo.listing = withFilter ? { toolHandles, lines } : { text: lines.join('\n') };
    return memo.listing;
  }

  /**
   * The injectCatalog list for this step: every key's line, the tool it names asked of the
   * filter's 'search' phase one by one in key order (as the host does); '' when empty.
   */
  async #catalogList(catalog, requestContext) {
    const listing = this.#listingOf(catalog);
    if (listing.text !== undefined) return listing.text;
    const { toolHandles, lines } = listing;
    const filter = this.#config.filter;
    const allowed = [];
    for (let i = 0; i < lines.length; i++) {
      const tool = catalog.toolAt(toolHandles[i]);
      if (!tool) continue;
      // #isAllowed inlined: a synchronous verdict costs no microtask (thousands per step).
      let verdict;
      try {
        verdict = filter({ toolName: tool.id, tool, requestContext, phase: 'search' });
        if (isThenable(verdict)) verdict = await verdict;
      } catch {
        verdict = false;
      }
      if (verdict === true) allowed.push(lines[i]);
    }
    return allowed.join('\n');
  }

  #resolveHandles(catalog, names) {
    return names.length === 0 ? [] : catalog.native.resolve(encodeTexts(names), this.#config.filter !== undefined);
  }

  /**
   * search_tools' search: `{ results, tools }`, ranked results the filter's 'search' phase
   * allows and, in parallel, the tools they name.
   * With `withEvidence` (preload), also `evidence`: per result `{ lexical, cosine }` in
   * 'hybrid' mode (see NativeEvidenceHits), undefined otherwise.
   */
  async #searchTools(catalog, query, requestContext, withEvidence = false) {
    if (catalog.size === 0) return { results: [], tools: [], evidence: undefined };
    const { topK, minScore, filter } = this.#config;
    // search.embedder: the query's vector, once the catalog's vectors are in (not for preload
    // without the shipped model, whose confidence reads the lexical ranking).
    const over = this.#overrideFor(catalog, withEvidence);
    const vector = over ? await this.#embedder.queryVector(query) : undefined;
    // The common case reads triplets from one reused buffer: no typed arrays per search.
    if (!filter && !withEvidence && !vector) return unfilteredResults(catalog, query, topK, minScore);
    const text = encodeText(query);
    const inspectAll = Boolean(filter);
    let hits;
    if (vector) {
      hits = withEvidence
        ? catalog.native.searchWithEvidenceOver(text, vector, over, topK, minScore, inspectAll)
        : catalog.native.searchOver(text, vector, over, topK, minScore, inspectAll);
    } else {
      hits = withEvidence ? catalog.native.searchWithEvidence(text, topK, minScore, inspectAll) : catalog.native.search(text, topK, minScore, true);
    }
    let accepted = [];
    for (let i = 0; i < hits.handles.length && accepted.length < topK; i++) {
      if (!filter || (await this.#isAllowed(catalog.toolAt(hits.handles[i]), requestContext, 'search'))) accepted.push(i);
    }
    const evidence = withEvidence && hits.cosines.length === hits.handles.length
      ? accepted.map((i) => ({ lexical: hits.lexical[i], cosine: hits.cosines[i] }))
      : undefined;
    return {
      results: accepted.map((i) => ({
        name: catalog.idAt(hits.handles[i]),
        description: shortDescription(catalog.descriptionAt(hits.docHandles[i])),
        score: Math.round(hits.scores[i] * 100) / 100,
      })),
      tools: accepted.map((i) => catalog.toolAt(hits.handles[i])),
      evidence,
      // (whether the ranking is the one this catalog gives once its vectors are in: a query
      // the embedder failed to embed was ranked without them)
      complete: !over || Boolean(vector),
    };
  }

  /** The embedder's vectors a search of `catalog` ranks with, if any (see #searchTools). */
  #overrideFor(catalog, withEvidence) {
    const lexicalPreload = withEvidence && this.#preloadMode !== this.#config.mode;
    return lexicalPreload ? undefined : this.#embedder?.overrideFor(catalog.native);
  }

  /**
   * Where preload remembers its rankings of `catalog`: one memo per catalog, or with a
   * `filter` (whose 'search' phase may answer differently per request) one per request
   * context, so a run's steps share it. Undefined when nothing can be remembered.
   */
  #rankingMemo(catalog, requestContext) {
    if (!this.#config.filter) return (catalog.preloadMemo ??= new preloadShared.RankingMemo());
    if (requestContext === null || typeof requestContext !== 'object') return undefined;
    catalog.preloadMemos ??= new WeakMap();
    let memo = catalog.preloadMemos.get(requestContext);
    if (!memo) catalog.preloadMemos.set(requestContext, (memo = new preloadShared.RankingMemo()));
    return memo;
  }

  /**
   * Preload's search of `query`: `{ results, tools, confidences }`, remembered per message text
   * (see RankingMemo), so re-deriving a conversation's preloads costs no search per message.
   */
  async #preloadRanking(catalog, requestContext, query) {
    const memo = this.#rankingMemo(catalog, requestContext);
    const scope = this.#overrideFor(catalog, true);
    const known = memo?.get(query, scope);
    if (known) return known;
    const { results, tools, evidence, complete } = await this.#searchTools(catalog, query, requestContext, true);
    const ranking = { results, tools, confidences: preloadShared.confidencesOf(this.#preloadMode, results, query, catalog.size, evidence) };
    if (complete) memo?.set(query, scope, ranking);
    return ranking;
  }

  async #suggestions(catalog, requested, requestContext) {
    const keys = catalog.native.suggestionKeys(encodeText(requested));
    if (!this.#config.filter) return decodeTexts(keys);
    const handles = catalog.native.resolve(keys, true);
    const allowed = [];
    for (let i = 0; i < keys.length; i++) {
      if (handles[i] < 0) continue;
      if (await this.#isAllowed(catalog.toolAt(handles[i]), requestContext, 'load')) {
        allowed.push(decodeText(keys[i]));
        if (allowed.length >= 3) break;
      }
    }
    return allowed;
  }

  /** Loaded names -> tools, through the 'active' filter (and, for context storage, 'load'). */
  async #loadedTools(catalog, loadedNames, requestContext) {
    const names = [...loadedNames];
    const handles = this.#resolveHandles(catalog, names);
    const recheckLoad = this.#config.storage !== 'in-memory';
    const out = {};
    for (let i = 0; i < names.length; i++) {
      if (handles[i] < 0) continue;
      const tool = catalog.toolAt(handles[i]);
      // Context storage reads names back from messages, which a client can forge or keep
      // stale, and a shared store is not a trust boundary either: re-check that the filter
      // still allows loading them.
      if (recheckLoad && !(await this.#isAllowed(tool, requestContext, 'load'))) continue;
      if (await this.#isAllowed(tool, requestContext, 'active')) out[names[i]] = tool;
    }
    return out;
  }

  #makeSearchTool(catalog, loadedNames, threadId, requestContext) {
    const { autoLoad, storage } = this.#config;
    // (preload's loads from a search are recorded in its result as autoLoad's are)
    const withReceipt = (autoLoad || this.#searchLoads()) && storage === 'context';
    const { createTool, z } = hostModulesOf(this);
    const schemas = schemasFor(z);
    return createTool({
      id: 'search_tools',
      description: messages.searchDescriptionFor(autoLoad),
      inputSchema: schemas.searchInput,
      outputSchema: withReceipt ? schemas.searchOutputWithReceipt : schemas.searchOutput,
      execute: async ({ query }) => {
        this.#assertLive();
        let found = await this.#searchTools(catalog, query, requestContext);
        // learn (hook): learned evidence moves tools up (not in 'compatible', whose scores are the host's).
        if (this.#learning && this.#config.mode !== 'compatible' && typeof query === 'string') {
          const allowed = (tool) => this.#isAllowed(tool, requestContext, 'search');
          found = await this.#learning.rerank(found, catalog, requestContext, query, this.#config.filter !== undefined, this.#config.topK, allowed);
        }
        let results = found.results;
        if (results.length === 0) return messages.noToolsFound(query);
        if (!autoLoad) {
          const loaded = await this.#loadFromSearch(catalog, loadedNames, threadId, requestContext, query, results);
          if (loaded.length === 0) return { results, message: messages.foundToolsMessage(results.length) };
          const output = { results, message: messages.searchLoadedMessage(results.length, loaded) };
          if (storage === 'context') output.activation = messages.receiptOf(loaded);
          return output;
        }
        if (this.#config.filter) {
          // Activation is a load: the 'load' phase must allow it, as load_tool would require.
          const loadable = [];
          for (let k = 0; k < results.length; k++) {
            if (await this.#isAllowed(found.tools[k], requestContext, 'load')) loadable.push(results[k]);
          }
          results = loadable;
          if (results.length === 0) return messages.noToolsLoadable(query);
        }
        const newlyLoaded = results.map((r) => r.name).filter((name) => !loadedNames.has(name));
        if (this.#shared) {
          const written = await this.#shared.addLoaded(newlyLoaded, threadId);
          if (!written.ok) return { results, message: messages.autoLoadUnavailableMessage(results.length) };
        } else {
          this.#store.addLoaded(newlyLoaded, threadId);
        }
        for (const name of newlyLoaded) loadedNames.add(name);
        const output = {
          results,
          message: messages.autoLoadedMessage(results.map((r) => r.name), newlyLoaded.length < results.length),
        };
        if (withReceipt) output.activation = messages.receiptOf(results.map((r) => r.name));
        return output;
      },
    });
  }

  /**
   * The tools `query` preloads: it is searched as search_tools does (its 'search' filter phase
   * included), and the hits, best first, are taken while their confidence reaches
   * `minConfidence`: at most `maxTools`, each allowed by the filter's 'load' and 'active'
   * phases. Whatever is loaded already, the same text picks the same tools. Nothing is written.
   */
  async #preloadChoice(catalog, requestContext, query, { max: maxTools, minConfidence, trigger } = this.#config.preload) {
    if (!query.trim()) return [];
    let ranking = await this.#preloadRanking(catalog, requestContext, query);
    // learn (hook): learned evidence joins the ranking; what it vouches for skips the
    // long-description confidence floor (never the hub guard).
    // (a search's loads keep the zero-shot ranking: learned evidence is about users' requests)
    if (this.#learning && trigger !== 'search') ranking = this.#learning.preloadRanking(ranking, catalog, requestContext, query, this.#config.filter !== undefined);
    const { results, tools, confidences, learned } = ranking;
    const { hubs, long } = catalog.guarded();
    const chosen = [];
    for (let i = 0; i < results.length && chosen.length < maxTools; i++) {
      if (confidences[i] < minConfidence) break;
      const { name, description } = results[i];
      if (chosen.some((c) => c.name === name)) continue;
      // A tool that comes up for requests about other tools is never loaded on a guess, and
      // one with an outlier-long description (how a stuffed tool looks) only with confidence.
      const vouched = learned?.has(name) === true; // learn (hook)
      // (a hub stays out even when learned: a model that called a stuffed tool and saw it
      // "succeed" must not teach preload to offer it)
      if (hubs.has(name)) continue;
      if (long.has(name) && !vouched && confidences[i] < LONG_DESCRIPTION_MIN_CONFIDENCE) continue;
      if (!(await this.#isAllowed(tools[i], requestContext, 'load'))) continue;
      if (!(await this.#isAllowed(tools[i], requestContext, 'active'))) continue;
      chosen.push({ name, description, confidence: Math.round(confidences[i] * 1000) / 1000, ...(vouched ? { learned: true } : {}) });
    }
    return chosen;
  }

  /**
   * Storage 'context' keeps no state but the conversation, so what its earlier user messages
   * preloaded is derived again from their text at every step (the same search, the same
   * tools); with `throughLast`, the last message's too. Extends `loadedNames`.
   */
  async #rederivePreloads(catalog, loadedNames, requestContext, messages, throughLast) {
    const texts = preloadShared.userTexts(messages);
    const upTo = throughLast ? texts.length : texts.length - 1;
    for (let i = 0; i < upTo; i++) {
      for (const { name } of await this.#preloadChoice(catalog, requestContext, texts[i])) loadedNames.add(name);
    }
  }

  /**
   * Preloads for the step's last user message: activates, as load_tool would, what
   * #preloadChoice picks and is not loaded yet, reports it to `onPreload` and returns it.
   * Extends `loadedNames`.
   */
  async #preload(catalog, loadedNames, threadId, requestContext, query) {
    const chosen = (await this.#preloadChoice(catalog, requestContext, query)).filter((c) => !loadedNames.has(c.name));
    return (await this.#activatePreloaded(chosen, loadedNames, threadId, query, 'message')) ? chosen : [];
  }

  /**
   * What #preload and #loadFromSearch share: activates the `chosen` tools' names as load_tool
   * would (the store, then `loadedNames`) and reports them to `onPreload` with `trigger`.
   * False when there was nothing to load or the shared store did not take the names.
   */
  async #activatePreloaded(chosen, loadedNames, threadId, query, trigger) {
    if (chosen.length === 0) return false;
    const names = chosen.map((c) => c.name);
    if (this.#shared) {
      const written = await this.#shared.addLoaded(names, threadId);
      if (!written.ok) return false;
    } else if (this.#config.storage !== 'context') {
      this.#store.addLoaded(names, threadId);
    }
    for (const name of names) loadedNames.add(name);
    const event = { threadId: threadId || 'default', query, trigger, tools: chosen.map(({ name, confidence, learned }) => ({ name, confidence, ...(learned ? { learned } : {}) })) }; // (learned: learn hook)
    preloadShared.notifyPreload(this.#config.preload.onPreload, event, this.#logger, 'ToolSearchProcessor');
    return true;
  }

  /** Whether preload loads a search_tools call's confident hits (not with autoLoad, which loads all). */
  #searchLoads() {
    const preload = this.#config.preload;
    return Boolean(preload) && preload.searchMinConfidence !== false && !this.#config.autoLoad;
  }

  /**
   * Preload for a search_tools call (not autoLoad): its hits listed in `results` whose
   * confidence for the model's `query` reaches `searchMinConfidence` (at most `maxTools`,
   * filter phases as for a message) are loaded now, as load_tool
   * would, and reported to `onPreload`. Returns the names loaded (none when the state is
   * unavailable: the result then reads as the host's).
   */
  async #loadFromSearch(catalog, loadedNames, threadId, requestContext, query, results) {
    if (!this.#searchLoads() || typeof query !== 'string') return [];
    const listed = new Set(results.map((r) => r.name));
    const limits = { max: this.#config.preload.max, minConfidence: this.#config.preload.searchMinConfidence, trigger: 'search' }; // (trigger: learn hook)
    const chosen = (await this.#preloadChoice(catalog, requestContext, query, limits)).filter((c) => listed.has(c.name) && !loadedNames.has(c.name));
    return (await this.#activatePreloaded(chosen, loadedNames, threadId, query, 'search')) ? chosen.map((c) => c.name) : [];
  }

  #makeLoadTool(catalog, loadedNames, threadId, requestContext) {
    const { createTool, z } = hostModulesOf(this);
    const schemas = schemasFor(z);
    return createTool({
      id: 'load_tool',
      description: messages.LOAD_DESCRIPTION,
      inputSchema: schemas.loadInput,
      outputSchema: schemas.loadOutput,
      execute: async ({ toolName, toolNames }) => {
        this.#assertLive();
        const toolNamesProvided = toolNames !== undefined;
        if (toolNamesProvided && toolNames.length === 0 && !toolName) return messages.emptyToolNames();
        let toLoad;
        if (toolNamesProvided && toolNames.length > 0) {
          toLoad = [...new Set(toolName ? [...toolNames, toolName] : toolNames)];
        } else if (toolName) {
          toLoad = [toolName];
        } else {
          return messages.noToolName();
        }

        const notFound = [];
        const alreadyLoaded = [];
        let loaded = [];
        let unavailable = [];
        const handles = this.#resolveHandles(catalog, toLoad);
        for (let i = 0; i < toLoad.length; i++) {
          const name = toLoad[i];
          if (handles[i] < 0 || !(await this.#isAllowed(catalog.toolAt(handles[i]), requestContext, 'load'))) {
            notFound.push(name);
          } else if (loadedNames.has(name) || loaded.includes(name)) {
            alreadyLoaded.push(name);
          } else {
            loaded.push(name);
          }
        }
        if (this.#shared) {
          const written = await this.#shared.addLoaded(loaded, threadId);
          if (!written.ok) {
            unavailable = loaded;
            loaded = [];
          }
        } else {
          this.#store.addLoaded(loaded, threadId);
        }
        for (const name of loaded) loadedNames.add(name);

        const outcome = { loaded, alreadyLoaded, notFound, unavailable };
        if (toLoad.length === 1 && !toolNamesProvided) {
          const name = toLoad[0];
          // (suggestions are looked up only for a name the result reports as not found)
          const suggestions = unavailable.length === 0 && notFound.length > 0 ? await this.#suggestions(catalog, name, requestContext) : [];
          return messages.singleLoadResult(name, outcome, suggestions);
        }
        return messages.batchLoadResult(outcome);
      },
    });
  }

  async processInputStep(args) {
    this.#assertLive();
    if (!args || typeof args !== 'object') {
      throw new TypeError('ToolSearchProcessor.processInputStep: args must be the step arguments object.');
    }
    const { tools, messageList, requestContext } = args;
    const { autoLoad, includeResolvedTools } = this.#config;
    const catalog = await this.#catalogForStep(tools);
    if (this.#embedder) await this.#embedder.prepare(catalog.native);
    // learn (hook): the calls the model made and that returned, learned before this step's preload.
    if (this.#learning) await this.#learning.observe(args, catalog, this.#config.filter !== undefined, (tool) => this.#isAllowed(tool, requestContext, 'active'));
    const threadId = threadIdOf(requestContext);
    // Snapshot of names loaded before this step; this step's meta-tools share and extend it.
    const loadedNames = new Set(
      this.#shared ? await this.#shared.loadedNames(threadId) : this.#store.loadedNames(threadId, args),
    );

    if (!messageList || typeof messageList.addSystem !== 'function') {
      throw new TypeError('ToolSearchProcessor.processInputStep: args.messageList must be a Mastra MessageList.');
    }
    messageList.addSystem(messages.systemMessageFor(autoLoad));
    if (this.#config.injectCatalog) {
      const list = await this.#catalogList(catalog, requestContext);
      if (list) messageList.addSystem(messages.catalogMessage(autoLoad, list));
    }

    // Preload (ours, opt-in): the first step of each user message activates the tools its text
    // finds with confidence, so they are offered at this very step.
    if (this.#config.preload) {
      const first = args.stepNumber === 0;
      if (this.#config.storage === 'context') await this.#rederivePreloads(catalog, loadedNames, requestContext, args.messages, !first);
      if (first) {
        const preloaded = await this.#preload(catalog, loadedNames, threadId, requestContext, preloadShared.lastUserText(args.messages));
        if (preloaded.length > 0) messageList.addSystem(messages.preloadMessage(preloaded));
      }
    }

    const searchTool = this.#makeSearchTool(catalog, loadedNames, threadId, requestContext);
    const loadTool = autoLoad ? undefined : this.#makeLoadTool(catalog, loadedNames, threadId, requestContext);
    const loadedTools = await this.#loadedTools(catalog, loadedNames, requestContext);

    // Meta-tools first, then pass-through tools, then loaded tools: appending keeps the
    // tool-definition prefix stable for prompt caching.
    return {
      tools: {
        search_tools: searchTool,
        ...(autoLoad ? {} : { load_tool: loadTool }),
        ...(includeResolvedTools ? metaToolEntries(tools) : (tools ?? {})),
        ...loadedTools,
      },
    };
  }

  /**
   * Loaded tools for a request, for agent resume paths (approval suspensions).
   * With `stepArgs` the live messages and step tools are used; otherwise the thread's
   * stored state and `tools`.
   */
  async getLoadedToolsForRequestContext(args) {
    this.#assertLive();
    if (args?.stepArgs) {
      const stepArgs = args.stepArgs;
      const requestContext = args.requestContext ?? stepArgs.requestContext;
      const catalog = await this.#catalogForStep(stepArgs.tools);
      const names = new Set(await this.#store.loadedNames(threadIdOf(stepArgs.requestContext), stepArgs));
      // (context storage: the messages' preloads, as every step derives them)
      if (this.#config.preload && this.#config.storage === 'context') await this.#addMessagesPreloads(catalog, names, requestContext, stepArgs.messages);
      return this.#loadedTools(catalog, names, requestContext);
    }
    const requestContext = args?.requestContext;
    const threadId = threadIdOf(requestContext);
    const catalog = await this.#catalogForStep(args?.tools);
    const names = new Set(await this.#store.loadedNames(threadId, undefined));
    // A suspended run's loads are read back from the thread's persisted messages (a resume after
    // the registry entry expired or a restart). A shared store outlives the process but not its
    // TTL (an approval the next day): read back when it holds nothing for the thread (the host
    // asks at every run, and a live key makes the storage read needless).
    if (!this.#shared || names.size === 0) await this.#addPersistedLoads(catalog, names, threadId, requestContext);
    return this.#loadedTools(catalog, names, requestContext);
  }

  /**
   * The resume path without step messages (the host rebuilds a run's tools after its registry
   * entry expired or the process restarted): when the thread has a run waiting for an approval
   * or a resume, the loads its persisted messages record (and, in context storage, their
   * preloads) join `names`. Where nothing can be read, one warning says what to configure
   * (not with a shared store, which holds the loads itself).
   */
  async #addPersistedLoads(catalog, names, threadId, requestContext) {
    const { messages, reason } = await suspendedThreadMessages(this.#mastra, threadId);
    if (!messages) {
      if (!this.#shared && (reason === 'no-thread' || reason === 'no-storage')) this.#warnResumeBlind(catalog, reason);
      return;
    }
    for (const name of namesFromMessages(messages)) names.add(name);
    if (this.#config.preload) await this.#addMessagesPreloads(catalog, names, requestContext, messages);
  }

  /**
   * What `messages` preloaded, into `names`: in context storage, the messages' preloads derived
   * again; and the tools of the calls the run waits on (a preloaded tool is in no meta-tool's
   * result, and a preload derived again may no longer pick it once learning moved or was lost
   * with a restart).
   */
  async #addMessagesPreloads(catalog, names, requestContext, messages) {
    if (!Array.isArray(messages)) return;
    if (this.#config.storage === 'context') await this.#rederivePreloads(catalog, names, requestContext, messages, true);
    for (const name of awaitedCallNames(messages)) names.add(name);
  }

  /** Once, and only for a catalog with a tool that can wait (approval or suspension). */
  #warnResumeBlind(catalog, reason) {
    if (this.#warnedResume) return;
    const tools = [...catalog.static.tools, ...(catalog.resolved?.tools ?? [])];
    if (!tools.some((t) => t && (t.requireApproval || t.suspendSchema))) return;
    this.#warnedResume = true;
    const why = reason === 'no-thread'
      ? 'the request has no memory thread (mastra__threadId or Memory)'
      : 'the registered Mastra instance has no storage with the thread\'s messages';
    const fix = this.#config.storage === 'context'
      ? "give the agent Memory on the Mastra instance's storage, or use a shared store (storage: redisStore(client))"
      : 'use a shared store (storage: redisStore(client)), or give the agent Memory on the Mastra instance\'s storage';
    const text = `ToolSearchProcessor: a run resumed after its in-process state is gone (an approval after the durable run registry entry expired, or after a restart) cannot find the tools this conversation loaded: ${why}; ${fix}.`;
    (this.#logger ?? console).warn(text);
  }

  /**
   * Forgets a thread's loaded tools (in-memory storage; a no-op for context storage). With a
   * store, returns a promise of `{ ok, error? }` that never rejects (bounded like every call).
   */
  clearState(threadId = 'default') {
    if (this.#shared) return this.#shared.clearThread(threadId);
    if (this.#store instanceof InMemoryNames) this.#store.native.clear(threadKey(threadId));
  }

  /**
   * Forgets every thread's loaded tools (in-memory storage; a no-op for context storage). With
   * a store: every thread of this store's namespace, as a promise of `{ ok, error? }`.
   */
  clearAllState() {
    if (this.#shared) return this.#shared.clearAll();
    if (this.#store instanceof InMemoryNames) this.#store.native.clearAll();
  }

  /**
   * Thread count and oldest access time of the store's state (ours): the store's `stats()`
   * with a store (null when it does not answer), else `getStateStats()`.
   */
  async getStoreStats() {
    this.#assertLive();
    if (!this.#shared) return this.getStateStats();
    return this.#shared.stats();
  }

  /** `{ threadCount, oldestAccessTime }` of in-memory state (zeros for context storage or a store). */
  getStateStats() {
    if (!(this.#store instanceof InMemoryNames)) return { threadCount: 0, oldestAccessTime: null };
    const stats = this.#store.native.stats();
    return { threadCount: stats.threadCount, oldestAccessTime: stats.oldestAccessTime ?? null };
  }

  /** Evicts idle in-memory threads now; returns how many (0 for context storage or ttl 0). */
  cleanupNow() {
    return this.#store.cleanup();
  }

  // learn (hook): privacy and observability of `options.learn` (see docs/learning.md).

  /**
   * Forgets everything `resourceId` taught (learn); resolves how many examples were removed (with
   * a shared `learn.store`: records deleted from it; every process forgets). Always a Promise.
   */
  async forgetLearnedResource(resourceId) {
    return this.#learning ? this.#learning.forgetResource(resourceId) : 0;
  }

  /** Forgets every learned example (learn; in every process with a shared store); `learn.seed` stays. Always a Promise. */
  async forgetAllLearned() {
    await this.#learning?.forgetAll();
  }

  /** `{ scope, examples, seeds, resources, bytes, store, lastOutage }` of what learn holds, or null when learn is off. */
  getLearningStats() {
    return this.#learning ? this.#learning.stats() : null;
  }

  /** Stops the cleanup timer and releases all state. Safe to call more than once. */
  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#store.dispose();
    this.#overlayCache = undefined;
    this.#embedder?.dispose();
    this.#learning?.dispose(); // learnstore (hook)
  }
}

/** The `args.tools` entries that stay visible when request tools are searchable. */
function metaToolEntries(tools) {
  const out = {};
  if (tools && typeof tools === 'object') {
    for (const [key, tool] of Object.entries(tools)) if (META_TOOL_NAMES.has(key)) out[key] = tool;
  }
  return out;
}

module.exports = { ToolSearchProcessor };
