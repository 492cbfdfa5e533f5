'use strict';
// SkillSearchProcessor: drop-in for the installed @mastra/core's (1.58–1.71), with search on a
// native index.
//
// The JS layer keeps everything Mastra-shaped (meta-tools, MessageList, per-thread state
// holding instruction strings); the Rust index only sees skill texts when they change and
// query strings per search, and returns skill indices, document sources and scores.
//
// Host rules come from js/host.js: the step-0 refresh ('blocking-throws' on 1.58/1.59,
// 'background-logged' with `blockingRefresh` on 1.60+) and the memory-thread parsing. On every
// host, request-scoped skills (`workspace.skills.getScoped({ requestContext })`) are used
// whenever offered: each scope (skills view) has its own native index, and a thread's loaded
// skills are shown in a scope only when that scope's own get() returns the same instructions.
// Freshness: Mastra's own skills objects are change-tracked (tracker.js), so a re-check
// reads the skills only after a refresh/addSkill/removeSkill (and then at the next search);
// other skills objects keep the per-skill get() check plus a full list() check every 5 s.
//
// `search.mode: 'enhanced'` (opt-in) swaps the index for a multilingual BM25F one with one
// document per skill (name, description, SKILL.md body, references) and ranks load_skill's
// "Did you mean" names by edit distance and shared words too. Everything else is unchanged.
// `search.mode: 'hybrid'` (opt-in) is enhanced fused with a static embedding model's ranking
// (js/semantic.js finds and loads the model once per process).
//
// Beside this file: messages.js (what the model reads), options.js (option checks),
// catalog.js (reading skills, the native index), tracker.js (change tracking of Mastra's
// skills objects) and state.js (loaded skills per thread).

const { hostModulesOf } = require('../host-modules.js');
const { describeValue, shortDescription } = require('../util.js');
const { confidencesOf, lastUserText, notifyPreload, preloadOptionsOf } = require('../preload.js');
const { EmbedderSide, embedderOptionsOf } = require('../embedder.js');
const { resolveThreadIdFor } = require('../thread-id.js');
const { encodeText } = require('../lossless.js');
const { checkOptions } = require('../options.js');
const { loadSemanticModel } = require('../semantic.js');
const { SharedLoadedNames } = require('../loaded-state.js');
const messages = require('./messages.js');
const { OPTION_SCHEMA, PRELOAD_MAX_SKILLS, PRELOAD_MIN_CONFIDENCE, blockingRefreshOf, capabilitiesOf } = require('./options.js');
const { checkNumbers, checkWorkspace, searchModeOf, storageOf, toNumber } = require('./options.js');
const { FULL_CHECK_INTERVAL_MS, buildSkillIndex, compatibleSuggestions, enhancedSuggestions } = require('./catalog.js');
const { entriesEqual, readSkills, skillEmbedText, skillsUnchanged } = require('./catalog.js');
const { trackerOf, trackerTrusted } = require('./tracker.js');
const skillState = require('./state.js');
// learn: learning from use (js/learn/skills.js)
const { learnOptionsOf } = require('../learn/options.js');
const { SkillLearning } = require('../learn/skills.js');

const { REFRESH_FAILED, schemasFor } = messages;

/**
 * Most request scopes (`workspace.skills.getScoped()` views) whose native index is kept;
 * the least recently used beyond this is dropped (and rebuilt if it comes back). Scopes idle
 * longer than `ttl` are dropped by the cleanup sweep as well.
 */
const MAX_CACHED_SCOPES = 32;

/**
 * Processor that enables on-demand skill discovery and loading: `search_skills` and
 * `load_skill` meta-tools, loaded instructions injected as system messages per thread.
 */
class SkillSearchProcessor {
  // Our additions stay private so the instance's own keys match the host's.
  /** Per-scope index state (see #scopeFor), most recently used last. */
  #scopes = new Map();
  /** Identity numbers of scoped skills views, for the per-thread loaded-skill scope tags. */
  #scopeIds = new WeakMap();
  #nextScopeId = 1;
  #stats = { builds: 0, checks: 0, lastBuildMs: 0, lastCheckMs: 0 };
  /** `search.mode` is 'enhanced' or 'hybrid'; kept out of `searchConfig`, whose shape is the reference's. */
  #enhanced = false;
  /** `search.mode === 'hybrid'`: the loaded static embedding model, else null. */
  #model = null;
  /** `storage: <store>`: the guarded shared store of loaded names, else undefined (in-memory). */
  #shared = undefined;
  /** The host's refresh contract: 'blocking-throws' (1.58/1.59) or 'background-logged' (1.60+). */
  #refreshRule = 'blocking-throws';
  /** On 1.58/1.59 hosts, whose processor has no such fields: blockingRefresh and the logger. */
  #blocking = true;
  #logger = undefined;
  /** How the thread id reads the memory context: 'lenient' (1.58/1.59) or 'parsed' (1.60+). */
  #memoryThread = 'lenient';
  /** `options.preload` (ours) as `{ max, minConfidence, onPreload }`, or undefined. */
  #preload = undefined;
  /** The search mode, for preload's confidence model. */
  #mode = 'compatible';
  /** `search.embedder` (ours, 'hybrid'): the user's EmbeddingModel on the semantic side, or undefined. */
  #embedder = undefined;
  /** `options.learn` (ours): the SkillLearning, or undefined when off. */
  #learning = undefined;

  constructor(options) {
    checkOptions(options, OPTION_SCHEMA);
    checkWorkspace(options.workspace);
    checkNumbers(options);
    const search = searchModeOf(options);
    this.#enhanced = search.mode === 'enhanced' || search.mode === 'hybrid';
    if (search.mode === 'hybrid') this.#model = loadSemanticModel(search.model, 'SkillSearchProcessor');
    this.#mode = search.mode ?? 'compatible';
    const embedder = embedderOptionsOf(options.search, this.#mode, 'SkillSearchProcessor');
    if (embedder) this.#embedder = new EmbedderSide(embedder, () => this.logger ?? this.#logger, 'SkillSearchProcessor', "the shipped model's vectors");
    this.#preload = preloadOptionsOf(options.preload, {
      kind: 'SkillSearchProcessor',
      countKey: 'maxSkills',
      max: PRELOAD_MAX_SKILLS,
      minConfidence: PRELOAD_MIN_CONFIDENCE,
    });
    const learn = learnOptionsOf(options.learn, 'SkillSearchProcessor');
    if (learn) this.#learning = new SkillLearning(learn, this.#model, () => this.logger ?? this.#logger);
    const storage = storageOf(options);
    const blocking = blockingRefreshOf(options);
    const capabilities = capabilitiesOf(options);
    this.#refreshRule = capabilities.skillRefresh;
    this.#memoryThread = capabilities.skillSearchMemoryThread;
    const hostFields = this.#refreshRule === 'background-logged';
    this.id = 'skill-search';
    this.name = 'Skill Search Processor';
    this.description = 'Enables on-demand skill discovery and loading via search';
    this.providesSkillDiscovery = 'on-demand';
    this.workspace = options.workspace;
    this.searchConfig = {
      topK: options.search?.topK ?? 5,
      minScore: options.search?.minScore ?? 0,
    };
    this.ttl = options.ttl ?? 3600000;
    if (storage) {
      // The host cleans up only when `ttl > 0`: anything else never expires (store TTL 0).
      const ttl = toNumber(this.ttl);
      const ttlMs = Number.isFinite(ttl) && ttl > 0 ? ttl : 0;
      this.#shared = new SharedLoadedNames(storage, {
        kind: 'skill-search',
        ttlMs,
        getLogger: () => this.logger ?? this.#logger,
        label: 'SkillSearchProcessor',
      });
    }
    if (hostFields) {
      // 1.60+ hosts: the same own fields, in the same order, as the host's processor.
      this.blockingRefresh = blocking ?? false;
      this.logger = undefined;
    } else {
      this.#blocking = blocking ?? true;
    }
    this.cleanupIntervalId = undefined;
    this.threadLoadedSkills = new Map();
    if (hostFields) {
      /** Logs a refresh failure; never throws. */
      this.warnRefreshFailed = error => {
        (this.logger ?? console).warn(REFRESH_FAILED, { error });
      };
    }

    if (this.ttl > 0) {
      // A WeakRef lets an undisposed processor be garbage-collected; the timer then stops itself.
      const self = new WeakRef(this);
      const id = setInterval(() => {
        const processor = self.deref();
        if (processor) processor.#cleanupStaleState();
        else clearInterval(id);
      }, Math.max(this.ttl / 2, 60000));
      if (id.unref) id.unref();
      this.cleanupIntervalId = id;
    }
  }

  /** Called by Mastra when the processor is registered: its logger receives refresh failures. */
  __registerMastra(mastra) {
    const logger = mastra.getLogger();
    if (this.#refreshRule === 'background-logged') this.logger = logger;
    else this.#logger = logger;
  }

  /** Stops the cleanup timer and releases all state and the indexes. Safe to call repeatedly. */
  dispose() {
    if (this.cleanupIntervalId) {
      clearInterval(this.cleanupIntervalId);
      this.cleanupIntervalId = undefined;
    }
    // A shared store is left alone: other processes use it.
    if (!this.#shared) this.clearAllState();
    this.#scopes.clear();
    this.#embedder?.dispose();
    this.#learning?.dispose();
  }

  /** Ours (learn): forgets everything `resourceId` taught; resolves how many examples went. */
  async forgetLearnedResource(resourceId) {
    return this.#learning ? this.#learning.forgetResource(resourceId) : 0;
  }

  /** Ours (learn): forgets every learned example (`learn.seed` stays). */
  async forgetAllLearned() {
    await this.#learning?.forgetAll();
  }

  /** Ours (learn): what learning holds, or null when learn is off. */
  getLearningStats() {
    return this.#learning ? this.#learning.stats() : null;
  }

  /** With a store: a promise of `{ ok, error? }` that never rejects (bounded). */
  clearState(threadId = 'default') {
    if (this.#shared) return this.#shared.clearThread(threadId);
    this.threadLoadedSkills.delete(threadId);
  }

  /** With a store: every thread of the store's namespace, as a promise of `{ ok, error? }`. */
  clearAllState() {
    if (this.#shared) return this.#shared.clearAll();
    this.threadLoadedSkills.clear();
  }

  /**
   * Thread count and oldest access time (ours): the store's `stats()` with a store (null when
   * it does not answer), else `getStateStats()`.
   */
  async getStoreStats() {
    if (!this.#shared) return this.getStateStats();
    return this.#shared.stats();
  }

  #cleanupStaleState() {
    if (this.ttl <= 0) return 0;
    const now = Date.now();
    const cleaned = skillState.dropStaleThreads(this.threadLoadedSkills, now, this.ttl);
    // Scope indexes idle as long are dropped too (not counted: the count is about threads).
    for (const [skills, scope] of this.#scopes) {
      if (now - scope.lastUsed > this.ttl) this.#scopes.delete(skills);
    }
    return cleaned;
  }

  getStateStats() {
    return skillState.threadStatsOf(this.threadLoadedSkills);
  }

  cleanupNow() {
    return this.#cleanupStaleState();
  }

  /**
   * Index statistics (not in the reference): skills and documents of the most recently used
   * scope's index, distinct terms, how many scopes hold an index, how many times an index was
   * built and checked, and the last durations in ms.
   */
  getIndexStats() {
    let index = null;
    for (const scope of this.#scopes.values()) index = scope.index ?? index;
    return {
      skillCount: index ? index.native.skillCount : 0,
      documentCount: index ? index.native.documentCount : 0,
      termCount: index ? index.native.termCount : 0,
      scopeCount: this.#scopes.size,
      builds: this.#stats.builds,
      checks: this.#stats.checks,
      lastBuildMs: this.#stats.lastBuildMs,
      lastCheckMs: this.#stats.lastCheckMs,
    };
  }

  /** Whether the workspace searches by substring (no BM25 and no vector engine). */
  #substringMode() {
    // Enhanced mode ranks with its own index whatever engine the workspace has.
    if (this.#enhanced) return false;
    const ws = this.workspace;
    return ws != null && ws.canBM25 === false && ws.canVector !== true;
  }

  /**
   * The index state of one skills view (a request scope, or the workspace's own skills),
   * marked most recently used. Each scope has its own native index, generation and re-check,
   * so nothing searched in one scope can come from another.
   */
  #scopeFor(skills) {
    let scope = this.#scopes.get(skills);
    if (scope) {
      this.#scopes.delete(skills);
    } else {
      scope = {
        skills,
        tracker: trackerOf(skills),
        index: null,
        generation: 0,
        checkedGeneration: -1,
        syncing: null,
        lastUsed: 0,
      };
    }
    scope.lastUsed = Date.now();
    this.#scopes.set(skills, scope);
    while (this.#scopes.size > MAX_CACHED_SCOPES) {
      this.#scopes.delete(this.#scopes.keys().next().value);
    }
    return scope;
  }

  #scopeIdOf(skills) {
    let id = this.#scopeIds.get(skills);
    if (id === undefined) {
      id = this.#nextScopeId++;
      this.#scopeIds.set(skills, id);
    }
    return id;
  }

  /** The scope's index, re-checked (and rebuilt only if something changed) when stale. */
  async #ensureIndex(scope) {
    // A tracked skills object changed since the index was read (or became trusted again after
    // an untracked read): re-check now, at any search.
    const tracker = scope.tracker;
    if (tracker && scope.index && scope.checkedGeneration === scope.generation) {
      const stamp = scope.index.stamp;
      if (stamp != null ? stamp !== tracker.changes : trackerTrusted(scope.skills, tracker)) scope.generation++;
    }
    // Loop: a refresh may settle (bumping the generation) while a re-check is in flight.
    while (!scope.index || scope.checkedGeneration !== scope.generation) {
      if (!scope.syncing) {
        scope.syncing = this.#sync(scope).finally(() => {
          scope.syncing = null;
        });
      }
      await scope.syncing;
    }
    return scope.index;
  }

  async #sync(scope) {
    const started = performance.now();
    const generation = scope.generation;
    const skills = scope.skills;
    const previous = scope.index;
    const substring = this.#substringMode();

    // Cheap path. A tracked Mastra skills object: no change since the last full read (no
    // skills call needed). Otherwise: the known skills re-get as before and that full read is
    // recent enough (a negative age means the wall clock went back: check fully).
    const tracked = trackerTrusted(skills, scope.tracker);
    const sinceFullCheck = previous ? Date.now() - previous.fullCheckAt : NaN;
    if (
      previous &&
      previous.substring === substring &&
      (tracked
        ? previous.stamp === scope.tracker.changes
        : sinceFullCheck >= 0 &&
          sinceFullCheck < FULL_CHECK_INTERVAL_MS &&
          (await skillsUnchanged(skills, previous.entries)))
    ) {
      this.#stats.checks++;
      scope.checkedGeneration = generation;
      this.#stats.lastCheckMs = performance.now() - started;
      return;
    }

    const fullCheckAt = Date.now();
    // The change count this read reflects (at least): a change during the read re-checks again.
    const stamp = tracked ? scope.tracker.changes : null;
    const { list, entries } = await readSkills(skills, previous);
    this.#stats.checks++;

    let index = previous;
    if (!previous || previous.substring !== substring || !entriesEqual(previous.entries, entries)) {
      const buildStart = performance.now();
      const { native, declaredDocuments } = buildSkillIndex(entries, { substring, enhanced: this.#enhanced, model: this.#model });
      index = { substring, entries, metaMap: null, native, declaredDocuments, fullCheckAt, stamp };
      this.#stats.builds++;
      this.#stats.lastBuildMs = performance.now() - buildStart;
    } else {
      // Same content, but keep the new snapshots so the next cheap check compares with them.
      index.entries = entries;
      index.fullCheckAt = fullCheckAt;
      index.stamp = stamp;
    }
    // Descriptions come from list() like the reference's metaMap (a later duplicate wins).
    index.metaMap = new Map(list.map(s => [s.name, s]));
    scope.index = index;
    scope.checkedGeneration = generation;
    this.#stats.lastCheckMs = performance.now() - started;
  }

  /**
   * search_skills' ranking: `ranked` as `[{ name, description, score, skill }]`, one per skill,
   * best first, and the `index` it was ranked in.
   */
  async #rankedSkills(scope, query) {
    const index = await this.#ensureIndex(scope);
    const topK = toNumber(this.searchConfig.topK);
    const minScore = toNumber(this.searchConfig.minScore);
    // search.embedder: the query's vector, once the index's vectors are in.
    let vector;
    let over;
    if (this.#embedder) {
      await this.#embedder.prepare(index.native, () => index.entries.map(skillEmbedText));
      over = this.#embedder.overrideFor(index.native);
      vector = over ? await this.#embedder.queryVector(query) : undefined;
    }
    const hits = vector
      ? index.native.searchOver(encodeText(query), vector, over, topK, minScore)
      : index.native.search(encodeText(query), topK, minScore);
    // De-duplicate by skill (SKILL.md and reference hits of one skill), first hit wins.
    // Enhanced hits are already one per skill name; the pass is then a no-op.
    const seen = new Set();
    const ranked = [];
    for (let i = 0; i < hits.skills.length; i++) {
      const name = index.entries[hits.skills[i]].name;
      if (seen.has(name)) continue;
      seen.add(name);
      const meta = index.metaMap.get(name);
      const description = meta?.description ?? '';
      ranked.push({
        name,
        description: shortDescription(description),
        score: Math.round(hits.scores[i] * 100) / 100,
        skill: hits.skills[i],
      });
    }
    return { index, ranked };
  }

  async #search(scope, query, requestContext) {
    const { index, ranked: found } = await this.#rankedSkills(scope, query);
    const ranked = this.#enhanced ? this.#learnedFirst(found, index, query, requestContext) : found;
    return ranked.length === 0 ? messages.noSkillsFound(query) : messages.foundSkills(ranked);
  }

  /**
   * learn ('enhanced' and 'hybrid'; 'compatible' keeps the host's results): the skills learning
   * vouches for come first, best first (one the search missed joins with the best score), the
   * rest keep their order; at most topK.
   */
  #learnedFirst(ranked, index, query, requestContext) {
    const topK = toNumber(this.searchConfig.topK);
    if (!this.#learning || typeof query !== 'string' || !(topK > 0)) return ranked;
    const strong = this.#learning.strong(query, requestContext, (name) => index.metaMap.has(name));
    if (strong.length === 0) return ranked;
    const top = ranked[0]?.score ?? 1;
    const front = strong.map(({ name }) => {
      const hit = ranked.find((r) => r.name === name);
      return hit ? { ...hit, score: Math.max(hit.score, top) } : { name, description: shortDescription(index.metaMap.get(name)?.description ?? ''), score: top };
    });
    const names = new Set(front.map((r) => r.name));
    return [...front, ...ranked.filter((r) => !names.has(r.name))].slice(0, topK);
  }

  /** Logs a refresh failure through the registered logger, else console.warn. */
  #refreshFailed(error) {
    if (typeof this.warnRefreshFailed === 'function') {
      this.warnRefreshFailed(error);
    } else {
      (this.#logger ?? console).warn(REFRESH_FAILED, { error });
    }
  }

  /**
   * Step 0: `skills.maybeRefresh({ requestContext })`. Blocking: awaited (1.58/1.59 hosts
   * rethrow a failure like theirs; 1.60+ log it). Background: not awaited, a failure logged.
   * Either way the scope's index is re-checked at its next search after the refresh settles.
   */
  async #refresh(skills, requestContext, scope) {
    const blocking = this.#refreshRule === 'background-logged' ? this.blockingRefresh : this.#blocking;
    const rethrow = blocking && this.#refreshRule === 'blocking-throws';
    // The refresh may change skills: re-check lazily at the next search, now and once settled.
    scope.generation++;
    let pending;
    try {
      pending = skills.maybeRefresh({ requestContext });
    } catch (error) {
      if (rethrow) throw error;
      this.#refreshFailed(error);
      return;
    }
    if (pending == null) return;
    const settled = Promise.resolve(pending).then(
      () => {
        scope.generation++;
      },
      error => {
        scope.generation++;
        if (rethrow) throw error;
        this.#refreshFailed(error);
      },
    );
    if (blocking) await settled;
  }

  /**
   * Searches `query` as search_skills does and loads, as load_skill would, the hits, best first,
   * whose confidence reaches `minConfidence` (at most `max`, counting those already loaded), in
   * this scope. Appends `[name, instructions]` to `loaded`; returns the names it loaded.
   */
  async #preloadSkills(scope, skills, scopeId, threadId, threadState, storeKey, loaded, query, requestContext) {
    const { max, minConfidence, onPreload } = this.#preload;
    if (!query.trim()) return [];
    const { index, ranked: results } = await this.#rankedSkills(scope, query);
    // 'hybrid': what each hit rests on (lexical score, the model's cosine), as for tools.
    let evidence;
    if (this.#mode === 'hybrid' && results.length > 0) {
      const flat = index.native.evidence(encodeText(query), Uint32Array.from(results.map((r) => r.skill)));
      evidence = results.map((_, i) => ({ lexical: flat[2 * i], cosine: flat[2 * i + 1] }));
    }
    const confidences = confidencesOf(this.#mode, results, query, index.metaMap.size, evidence);
    let rows = results.map((r, i) => ({ name: r.name, confidence: confidences[i], learned: false }));
    // learn: a skill learning vouches for takes the larger of its two confidences (joining if the search missed it)
    if (this.#learning) {
      for (const { name, confidence } of this.#learning.strong(query, requestContext, (n) => index.metaMap.has(n))) {
        const row = rows.find((r) => r.name === name);
        if (row) Object.assign(row, { confidence: Math.max(row.confidence, confidence), learned: true });
        else rows.push({ name, confidence, learned: true });
      }
      rows = rows.sort((a, b) => b.confidence - a.confidence);
    }
    const already = new Set(loaded.map(([name]) => name));
    const chosen = [];
    for (let i = 0; i < rows.length && i < max; i++) {
      if (rows[i].confidence < minConfidence) break;
      if (!already.has(rows[i].name)) chosen.push({ name: rows[i].name, confidence: Math.round(rows[i].confidence * 1000) / 1000, ...(rows[i].learned ? { learned: true } : {}) });
    }
    const done = [];
    for (const { name, confidence, learned } of chosen) {
      const skill = await skills.get(name);
      if (!skill) continue;
      if (this.#shared) {
        if (!(await this.#shared.addAt(storeKey, [name])).ok) continue;
      } else {
        skillState.rememberVariant(threadState, name, skill.instructions, scopeId);
      }
      loaded.push([name, skill.instructions]);
      done.push({ name, confidence, ...(learned ? { learned } : {}) });
    }
    if (done.length > 0) notifyPreload(onPreload, { threadId, query, skills: done }, this.logger ?? this.#logger, 'SkillSearchProcessor');
    return done.map((d) => d.name);
  }

  async processInputStep(args) {
    const { tools, messageList } = args;
    // Difference 6 on 1.58/1.59 (the host's own rule on 1.60+): the memory thread before 'default'.
    const threadId = resolveThreadIdFor(args.requestContext, this.#memoryThread) || 'default';
    const shared = this.#shared;
    const storeKey = shared ? shared.keyOf(threadId) : undefined;
    const threadState = shared ? undefined : skillState.threadStateOf(this.threadLoadedSkills, threadId);
    const configuredSkills = this.workspace.skills;

    if (!configuredSkills) {
      return { tools };
    }

    // Request-scoped skills wherever the workspace offers them (every host: tenant isolation).
    const skills =
      typeof configuredSkills.getScoped === 'function'
        ? await configuredSkills.getScoped({ requestContext: args.requestContext })
        : configuredSkills;
    if (!skills || typeof skills !== 'object') {
      throw new TypeError(
        `SkillSearchProcessor: workspace.skills.getScoped() must resolve to the request's skills; received ${describeValue(skills)}.`,
      );
    }
    const scope = this.#scopeFor(skills);
    const scopeId = this.#scopeIdOf(skills);

    if (args.stepNumber === 0) {
      await this.#refresh(skills, args.requestContext, scope);
    }

    // This thread's loaded skills that belong to this scope (usually all of them, no call).
    const loaded = shared
      ? await skillState.loadedFromStore(shared, storeKey, skills)
      : await skillState.loadedIn(threadState, skills, scopeId);
    // With a store: the names loaded as of this step (extended by this step's loads).
    const sharedLoaded = shared ? new Set(loaded.map(([name]) => name)) : undefined;

    messageList.addSystem(messages.INSTRUCTION);

    const { createTool, z } = hostModulesOf(this);
    const schemas = schemasFor(z);
    const searchSkillTool = createTool({
      id: 'search_skills',
      description: messages.SEARCH_DESCRIPTION,
      inputSchema: schemas.searchInput,
      outputSchema: schemas.searchOutput,
      execute: async ({ query }) => this.#search(scope, query, args.requestContext),
    });

    const loadSkillTool = createTool({
      id: 'load_skill',
      description: messages.LOAD_DESCRIPTION,
      inputSchema: schemas.loadInput,
      outputSchema: schemas.loadOutput,
      execute: async ({ skillName }) => {
        const alreadyLoaded = messages.skillAlreadyLoaded(skillName);
        if (shared ? sharedLoaded.has(skillName) : skillState.variantIn(threadState.skills.get(skillName), scopeId)) {
          return alreadyLoaded;
        }
        const skill = await skills.get(skillName);
        if (!skill) {
          const allSkills = await skills.list();
          const suggestions = this.#enhanced
            ? enhancedSuggestions(skillName, allSkills)
            : compatibleSuggestions(skillName, allSkills);
          return messages.skillNotFound(skillName, suggestions);
        }
        if (shared) {
          const written = await shared.addAt(storeKey, [skillName]);
          if (!written.ok) return messages.skillUnavailable(skillName);
          sharedLoaded.add(skillName);
          return messages.skillLoaded(skillName);
        }
        // Loaded in another scope: the same text is loaded here too; other text is this
        // scope's own variant (another tenant's is never shown or reported here).
        if (!skillState.rememberVariant(threadState, skillName, skill.instructions, scopeId)) return alreadyLoaded;
        return messages.skillLoaded(skillName);
      },
    });

    // Preload (ours, opt-in): the first step of each user message loads, as load_skill would,
    // the skill its text finds with confidence; its instructions are in this very step.
    // learn: the load_skill calls that loaded a skill, learned before this step's preload.
    if (this.#learning) await this.#learning.observe(args);
    if (this.#preload && args.stepNumber === 0) {
      const preloaded = await this.#preloadSkills(scope, skills, scopeId, threadId, threadState, storeKey, loaded, lastUserText(args.messages), args.requestContext);
      for (const name of preloaded) sharedLoaded?.add(name);
    }

    for (const [skillName, instructions] of loaded) {
      messageList.addSystem(messages.skillSystemMessage(skillName, instructions));
    }

    const metaTools = { search_skills: searchSkillTool, load_skill: loadSkillTool };
    if (tools) {
      for (const key of Object.keys(tools)) {
        if (key in metaTools) {
          console.warn(`[SkillSearchProcessor] User tool "${key}" conflicts with meta-tool and will be shadowed.`);
        }
      }
    }

    return { tools: { ...(tools ?? {}), ...metaTools } };
  }
}

module.exports = { SkillSearchProcessor };
