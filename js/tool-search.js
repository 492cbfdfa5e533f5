'use strict';
// ToolSearchProcessor: the Mastra-facing layer. Tool objects, meta-tools, the filter hook
// and MessageList stay in JavaScript; the catalog (BM25 search, name resolution,
// suggestions) and the loaded-name stores live in Rust and are addressed by handle.

const preloadShared = require('./preload.js');
const { EmbedderSide, embedderOptionsOf } = require('./embedder.js');
const { hostModulesOf, perZod } = require('./host-modules.js');
const { checkOptions } = require('./options.js');
const native = require('./native.js');
const { describeValue, sameStrings } = require('./util.js');
const { resolveThreadIdFor, threadKey, sharedThreadKey } = require('./thread-id.js');
const { decodeText, decodeTexts, encodeText, encodeTexts } = require('./lossless.js');
const { host } = require('./host.js');
const { extractParamFields } = require('./schema-fields.js');
const { assertStateStore, bindStateStore, guardStateStore } = require('./stores/index.js');
const { searchModeOf, loadSemanticModel } = require('./semantic.js');

const META_TOOL_NAMES = new Set(['search_tools', 'load_tool']);
const DEFAULT_TTL_MS = 3_600_000;
const MIN_CLEANUP_INTERVAL_MS = 60_000;
const RECEIPT_TYPE = 'tool-search-auto-load';

const SYSTEM_MESSAGE =
  'To discover available tools, call search_tools with a keyword query. ' +
  'To add one or more tools to the conversation, call load_tool with a toolName or toolNames array. ' +
  'Tools must be loaded before they can be used.';
const SYSTEM_MESSAGE_AUTO_LOAD =
  'To discover available tools, call search_tools with a keyword query. ' +
  'Matching tools are loaded automatically and become available on your next turn — ' +
  'there is no separate load step. After searching, use the tool directly.';
const SEARCH_DESCRIPTION =
  'Search for available tools by keyword. ' +
  "Use this when you need a capability you don't currently have. " +
  'Returns a list of matching tools with their names and descriptions. ' +
  'After finding a useful tool, use load_tool to make it available.';
const SEARCH_DESCRIPTION_AUTO_LOAD =
  'Search for available tools by keyword. ' +
  "Use this when you need a capability you don't currently have. " +
  'Returns a list of matching tools, which are loaded automatically and ' +
  'become available on your next turn — no separate load step is required.';
// injectCatalog (host 1.67+; ours on every host): the header before the tool list.
const CATALOG_HEADER =
  'The following tools are available to load. Call load_tool with a toolName or toolNames array ' +
  'to add one or more before using them — no search step is required. ' +
  'search_tools is also available if you need to rediscover tools by keyword.';
const CATALOG_HEADER_AUTO_LOAD =
  'The following tools are available. Call search_tools with a keyword to load one — ' +
  'matching tools are loaded automatically and become available on your next turn.';
const CATALOG_LIST_INTRO = '\n\nAvailable tools:\n';
const LOAD_DESCRIPTION =
  'Load one or more tools into your context. ' +
  'Call this after finding tools with search_tools. ' +
  'Once loaded, tools will be available for use. ' +
  'Pass a single toolName or an array of toolNames to load multiple tools at once.';

// Schemas are immutable, so they are built once per zod instance instead of on every step.
const schemasFor = perZod((z) => {
  const searchInput = z.object({
    query: z.string().describe('Search keywords (e.g., "weather", "github issue", "database query")'),
  });
  const searchResult = z.object({ name: z.string(), description: z.string(), score: z.number() });
  const searchOutput = z.object({ results: z.array(searchResult), message: z.string() });
  const searchOutputWithReceipt = z.object({
    results: z.array(searchResult),
    message: z.string(),
    activation: z
      .object({ type: z.literal(RECEIPT_TYPE), version: z.literal(1), loaded: z.array(z.string()) })
      .optional(),
  });
  const loadInput = z.object({
    toolName: z.string().optional().describe('The exact name of a tool to load (from search results)'),
    toolNames: z
      .array(z.string())
      .optional()
      .describe('Array of exact tool names to load in one call (from search results)'),
  });
  const loadOutput = z.object({
    success: z.boolean(),
    message: z.string(),
    loadedCount: z.number().optional(),
    toolName: z.string().optional(),
    loaded: z.array(z.string()).optional(),
    notFound: z.array(z.string()).optional(),
    alreadyLoaded: z.array(z.string()).optional(),
  });
  return { searchInput, searchOutput, searchOutputWithReceipt, loadInput, loadOutput };
});

// ---------------------------------------------------------------------------------------
// Options

function optionError(path, expected, value) {
  return new TypeError(`ToolSearchProcessor: ${path} must be ${expected}; received ${describeValue(value)}.`);
}

/** `tool.id` when it is a non-empty string: the reference indexes `tool.id || key`. */
function toolIdOf(tool) {
  const id = tool.id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

function toolDescriptionOf(tool) {
  const d = tool.description;
  return d ? String(d) : '';
}

/** Every option this processor knows (on every host); others are warned about, not rejected. */
const OPTION_SCHEMA = {
  name: 'ToolSearchProcessor',
  keys: ['tools', 'search', 'storage', 'ttl', 'filter', 'includeResolvedTools', 'injectCatalog', 'preload'],
  nested: { search: ['topK', 'minScore', 'autoLoad', 'mode', 'model', 'embedder', 'embedderTimeoutMs', 'embeddingCache'], preload: ['maxTools', 'minConfidence', 'searchMinConfidence', 'onPreload'] },
};

/** `preload` defaults: at most this many tools per user message, each at least this confident. */
const PRELOAD_MAX_TOOLS = 3;
// Confidence is an estimated probability (js/preload.js). 0.45 was chosen on the development
// halves (bench/agent-steps.mjs --split dev): precision 0.68-0.81 per language in 'hybrid' with
// 1.49-1.67 model calls per solved task; 0.4 let Korean fall to 0.65, 0.5 cost calls.
const PRELOAD_MIN_CONFIDENCE = 0.45;
// A search_tools call is the model asking for a capability, and a round trip costs more than a
// few tool definitions: by default its best hits (at most maxTools) are loaded right away,
// whatever their confidence. On the tuning halves (bench/agent-steps.mjs --split dev, hybrid)
// that takes model calls per solved task from 1.90 to 1.51 (MetaTool) and input bytes per
// solved task down too (4.2 vs 5.3 KB); a floor of 0.05 or 0.2 kept 1.58 / 1.73.
const PRELOAD_SEARCH_MIN_CONFIDENCE = 0;

/** A tool as the catalog listing and the preload message show it. */
function toolLine(name, description) {
  return description ? `- \`${name}\`: ${description}` : `- \`${name}\``;
}

/** search_tools' message when preload loaded some of its `count` results (`loaded`, names). */
function searchLoadedMessage(count, loaded) {
  const them = loaded.length === 1 ? 'it' : 'them';
  return (
    `Found ${count} tool(s). Loaded ${loaded.join(', ')} for you: call ${them} directly on your next turn.` +
    (loaded.length < count ? ' Use load_tool with an exact toolName or a toolNames array to make the others available.' : '')
  );
}

/** The system message naming this step's preloaded tools. */
function preloadMessage(tools) {
  const lines = tools.map(({ name, description }) => toolLine(name, description));
  return (
    "These tools were loaded for the user's request and can be called directly now, without search_tools or load_tool:\n" +
    lines.join('\n') +
    '\nUse search_tools for anything else.'
  );
}

function normalizeOptions(options) {
  if (options === null || typeof options !== 'object') {
    throw optionError('options', 'an object like { tools: { [key]: tool } }', options);
  }
  checkOptions(options, OPTION_SCHEMA);
  const { tools } = options;
  if (tools === null || typeof tools !== 'object' || Array.isArray(tools)) {
    throw optionError('options.tools', 'an object mapping tool keys to Mastra tools', tools);
  }
  const search = options.search ?? {};
  if (typeof search !== 'object' || Array.isArray(search)) {
    throw optionError('options.search', 'an object', search);
  }
  const topK = search.topK ?? 5;
  if (typeof topK !== 'number' || !Number.isInteger(topK) || topK < 0) {
    throw optionError('options.search.topK', 'a non-negative integer', topK);
  }
  const minScore = search.minScore ?? 0;
  if (typeof minScore !== 'number' || !Number.isFinite(minScore)) {
    throw optionError('options.search.minScore', 'a finite number', minScore);
  }
  const autoLoad = search.autoLoad ?? false;
  if (typeof autoLoad !== 'boolean') throw optionError('options.search.autoLoad', 'a boolean', autoLoad);
  const { mode, model } = searchModeOf(search, 'ToolSearchProcessor');
  const embedder = embedderOptionsOf(search, mode, 'ToolSearchProcessor');
  const storage = options.storage ?? 'in-memory';
  if (storage !== 'in-memory' && storage !== 'context') {
    if (storage === null || (typeof storage !== 'object' && typeof storage !== 'function')) {
      throw optionError('options.storage', "'in-memory', 'context' or a state store such as redisStore(client)", storage);
    }
    try {
      assertStateStore(storage, 'options.storage');
    } catch (error) {
      throw new TypeError(`ToolSearchProcessor: ${error.message}`);
    }
  }
  const ttl = options.ttl ?? DEFAULT_TTL_MS;
  if (typeof ttl !== 'number' || !Number.isFinite(ttl) || ttl < 0) {
    throw optionError('options.ttl', 'a non-negative finite number of milliseconds (0 disables cleanup)', ttl);
  }
  const filter = options.filter;
  if (filter != null && typeof filter !== 'function') {
    throw optionError('options.filter', 'a function ({ toolName, tool, requestContext, phase }) => boolean', filter);
  }
  const includeResolvedTools = options.includeResolvedTools ?? false;
  if (typeof includeResolvedTools !== 'boolean') {
    throw optionError('options.includeResolvedTools', 'a boolean', includeResolvedTools);
  }
  const injectCatalog = options.injectCatalog ?? false;
  if (typeof injectCatalog !== 'boolean') {
    throw optionError('options.injectCatalog', 'a boolean', injectCatalog);
  }
  const preload = preloadShared.preloadOptionsOf(options.preload, {
    kind: 'ToolSearchProcessor',
    countKey: 'maxTools',
    max: PRELOAD_MAX_TOOLS,
    minConfidence: PRELOAD_MIN_CONFIDENCE,
    searchMinConfidence: PRELOAD_SEARCH_MIN_CONFIDENCE,
  });
  return {
    preload,
    tools,
    topK,
    minScore,
    autoLoad,
    mode,
    model,
    embedder,
    storage,
    ttl,
    filter: filter ?? undefined,
    includeResolvedTools,
    injectCatalog,
  };
}

/** Parameter names and descriptions as one text, for enhanced search. */
function paramTextOf(tool) {
  return extractParamFields(tool)
    .map(([name, description]) => (description ? `${name}: ${description}` : name))
    .join('\n');
}

/** Splits a tools record into parallel arrays (tool ids and descriptions are what Rust needs). */
function readStaticTools(tools, enhanced) {
  const keys = Object.keys(tools);
  const list = new Array(keys.length);
  const ids = new Array(keys.length);
  const descriptions = new Array(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const tool = tools[key];
    if (tool === null || typeof tool !== 'object') {
      throw optionError(`options.tools[${JSON.stringify(key)}]`, 'a Mastra tool object', tool);
    }
    if (tool.id != null && typeof tool.id !== 'string') {
      throw optionError(`options.tools[${JSON.stringify(key)}].id`, 'a string', tool.id);
    }
    list[i] = tool;
    ids[i] = toolIdOf(tool);
    descriptions[i] = toolDescriptionOf(tool);
  }
  const params = enhanced ? list.map(paramTextOf) : undefined;
  return { keys, tools: list, ids, descriptions, params };
}

/**
 * Catalogs whose joined text is at least this long are indexed on a libuv pool thread, so
 * the event loop keeps serving while they build; smaller ones build inline (cheaper than a
 * task and a promise, and ready before the first step). Both sit where an inline release
 * build takes ~5 ms (~3,000 realistic tools compatible, ~700 enhanced; bench/event-loop.mjs).
 */
const OFF_THREAD_BUILD_MIN_CHARS = { compatible: 500_000, enhanced: 100_000, hybrid: 40_000 };

/**
 * Whether a request catalog builds off-thread. Its inline cost grows with the base (reused
 * documents, ~0.5 µs a tool compatible; rebuilt from text, ~3.5 µs, enhanced) and with the
 * resolved tools (tokenized, ~1.5 µs a tool): ~5 ms at the limits below.
 */
function overlayOffThread(baseSize, resolvedCount, enhanced) {
  return enhanced ? baseSize + resolvedCount >= 1_500 : baseSize + 3 * resolvedCount >= 10_000;
}

/**
 * The catalog as one UTF-8 buffer of `key \0 id \0 description [\0 params]` fields, tool
 * after tool, encoded per tool straight into it: joining the strings instead builds a rope
 * that the crossing must flatten and convert, several times slower. `Buffer#write` needs no
 * view object per tool (TextEncoder#encodeInto does: ~30% slower at 10k tools). Lone
 * surrogates become U+FFFD, as in every string napi hands to Rust. `units` is the text's
 * UTF-16 length.
 */
function encodeCatalog(part) {
  const enhanced = part.params !== undefined;
  let units = 0;
  for (let i = 0; i < part.keys.length; i++) {
    units += part.keys[i].length + (part.ids[i] ?? '').length + part.descriptions[i].length + 3;
    if (enhanced) units += part.params[i].length + 1;
  }
  // (UTF-8 needs at most 3 bytes per UTF-16 unit; untouched pages are never committed, and
  // Rust reads only the `length` bytes written)
  const bytes = Buffer.allocUnsafeSlow(3 * units);
  let length = 0;
  for (let i = 0; i < part.keys.length; i++) {
    let fields = (i === 0 ? '' : '\0') + part.keys[i] + '\0' + (part.ids[i] ?? '') + '\0' + part.descriptions[i];
    if (enhanced) fields += '\0' + part.params[i];
    length += bytes.write(fields, length);
  }
  return { bytes, length, units };
}

/**
 * The shipped model for search.mode 'hybrid'. With search.embedder and no search.model, a
 * missing model package is no error: the embedder's vectors are the semantic side, and lexical
 * ranking the fallback.
 */
function hybridModelFor(config) {
  try {
    return loadSemanticModel(config.model, 'ToolSearchProcessor');
  } catch (error) {
    if (config.embedder && config.model === undefined && error?.code === 'MASTRA_NATIVE_MODEL_NOT_FOUND') return undefined;
    throw error;
  }
}

/**
 * Builds the static native catalog, rejecting ambiguous names (duplicates, reserved
 * meta-tool names; a key that is another tool's id only where the host rejects it, which
 * no released host does). The strings cross as one UTF-8 buffer; a value containing NUL
 * falls back to arrays. A large catalog is validated now (it throws here, as the host's
 * constructor does) and indexed off-thread: the result is then a promise.
 */
function buildStaticCatalog(jsPart, model) {
  const part = nativeStrings(jsPart);
  const acceptKeyConflicts = host.capabilities.toolKeyIdCollision === 'key-first';
  const enhanced = part.params !== undefined;
  const joined = encodeCatalog(part);
  if (model) return buildHybridCatalog(part, joined, model, acceptKeyConflicts);
  const { NativeToolCatalog } = native;
  const source = { joined: { bytes: joined.bytes, length: joined.length, count: part.keys.length } };
  const options = { mode: enhanced ? 'enhanced' : 'compatible', validate: true, acceptKeyConflicts };
  try {
    if (joined.units >= OFF_THREAD_BUILD_MIN_CHARS[options.mode]) return NativeToolCatalog.buildAsync(source, options);
    return NativeToolCatalog.build(source, options);
  } catch (error) {
    if (!/joined catalog/.test(error.message)) throw new Error(decodeText(error.message));
    return withDecodedErrors(() => NativeToolCatalog.build({ tools: nativeTools(part) }, options));
  }
}

/**
 * The strings of a catalog part as they cross into Rust: lossless (see lossless.js), so names
 * that differ only by a lone surrogate stay distinct. The same arrays when nothing changes.
 */
function nativeStrings(part) {
  const keys = encodeTexts(part.keys);
  const ids = encodeTexts(part.ids);
  const descriptions = encodeTexts(part.descriptions);
  const params = part.params && encodeTexts(part.params);
  if (keys === part.keys && ids === part.ids && descriptions === part.descriptions && params === part.params) return part;
  return { ...part, keys, ids, descriptions, params };
}

/** A catalog part's strings as the binding's `NativeTools` (just the arrays it reads). */
function nativeTools(part) {
  return { keys: part.keys, ids: part.ids, descriptions: part.descriptions, params: part.params };
}

/** Runs a native build; its error messages name tools as the user wrote them. */
function withDecodedErrors(build) {
  try {
    return build();
  } catch (error) {
    throw new Error(decodeText(error.message));
  }
}

/** `search.mode: 'hybrid'`: enhanced plus each tool embedded with the model (the costly part). */
function buildHybridCatalog(part, joined, model, acceptKeyConflicts) {
  const { NativeToolCatalog } = native;
  const source = { joined: { bytes: joined.bytes, length: joined.length, count: part.keys.length } };
  const options = { mode: 'hybrid', validate: true, acceptKeyConflicts };
  try {
    if (joined.units >= OFF_THREAD_BUILD_MIN_CHARS.hybrid) return NativeToolCatalog.buildAsync(source, options, model);
    return NativeToolCatalog.build(source, options, model);
  } catch (error) {
    if (!/joined catalog/.test(error.message)) throw new Error(decodeText(error.message));
    return withDecodedErrors(() => NativeToolCatalog.build({ tools: nativeTools(part) }, options, model));
  }
}

/**
 * `(handle, docHandle, score)` triplets of the latest unfiltered search. Shared by every
 * processor of this module instance: it is read right after the synchronous native call,
 * before anything else can run.
 */
let hitBuffer = new Float64Array(3 * 16);

/** Unfiltered search into `hitBuffer`, grown first so every hit fits; returns the count. */
function unfilteredHits(catalog, query, topK, minScore) {
  const most = 3 * Math.min(topK, catalog.size);
  if (hitBuffer.length < most) hitBuffer = new Float64Array(most);
  return Math.min(catalog.native.searchInto(encodeText(query), topK, minScore, hitBuffer), hitBuffer.length / 3);
}

// ---------------------------------------------------------------------------------------
// Catalogs: a native index plus the JS arrays its handles point into.

class Catalog {
  #size;
  /**
   * `memo` holds what is derived from the catalog's strings only (the injectCatalog
   * listing); an overlay shares it with the overlay cache, so equal request tools reuse it.
   */
  constructor(nativeCatalog, staticPart, resolvedPart, memo = {}) {
    this.native = nativeCatalog;
    this.static = staticPart;
    this.resolved = resolvedPart; // undefined for the static catalog
    this.firstResolvedHandle = staticPart.tools.length;
    this.memo = memo;
  }

  get size() {
    // (a native getter per search adds up; a catalog never changes size)
    this.#size ??= this.native.size;
    return this.#size;
  }

  /** The array entry for `handle` in the static part or, past it, the resolved part. */
  #at(field, handle) {
    return handle < this.firstResolvedHandle
      ? this.static[field][handle]
      : this.resolved[field][handle - this.firstResolvedHandle];
  }

  toolAt(handle) {
    return this.#at('tools', handle);
  }

  idAt(handle) {
    return this.#at('ids', handle);
  }

  keyAt(handle) {
    return this.#at('keys', handle);
  }

  descriptionAt(handle) {
    return this.#at('descriptions', handle);
  }
}

/** Request-resolved tools (`args.tools` minus the meta-tool keys) as parallel arrays. */
function readResolvedTools(stepTools, enhanced) {
  const keys = [];
  const tools = [];
  const ids = [];
  const descriptions = [];
  if (stepTools && typeof stepTools === 'object') {
    for (const [key, tool] of Object.entries(stepTools)) {
      if (META_TOOL_NAMES.has(key)) continue;
      const t = tool !== null && typeof tool === 'object' ? tool : {};
      keys.push(key);
      tools.push(tool);
      ids.push(toolIdOf(t));
      descriptions.push(toolDescriptionOf(t));
    }
  }
  const params = enhanced ? tools.map((t) => (t !== null && typeof t === 'object' ? paramTextOf(t) : '')) : undefined;
  return { keys, tools, ids, descriptions, params };
}

// ---------------------------------------------------------------------------------------
// Loaded-name stores

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
class SharedNames {
  constructor(store, ttl, getLogger) {
    const bound = bindStateStore(store, { kind: 'tool-search', ttlMs: ttl }, 'options.storage');
    this.guard = guardStateStore(bound, { getLogger, label: 'ToolSearchProcessor' });
  }

  async loadedNames(threadId) {
    // Names cross to the store lossless too (a lone surrogate would not survive UTF-8).
    return decodeTexts((await this.guard.load(sharedThreadKey(threadId || 'default', 'ToolSearchProcessor'))).names);
  }

  /** Resolves `{ ok }`; `ok: false` means the names may not have been stored. */
  addLoaded(names, threadId) {
    return this.guard.add(sharedThreadKey(threadId || 'default', 'ToolSearchProcessor'), encodeTexts(names));
  }

  cleanup() {
    // Expiry is the store's (e.g. Redis key TTLs).
    return 0;
  }

  dispose() {
    // The state is shared with other processes: a disposed processor leaves it alone.
  }
}

// ---------------------------------------------------------------------------------------

/** The request's thread id, read as the installed host reads it (see thread-id.js). */
function threadIdOf(requestContext) {
  return resolveThreadIdFor(requestContext, host.capabilities.toolSearchMemoryThread);
}

function formatDescription(description) {
  return description.length > 150 ? description.slice(0, 147) + '...' : description;
}

function isThenable(value) {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof value.then === 'function';
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
    if (config.embedder) {
      const fallback = model ? "the shipped model's vectors" : 'the lexical ranking alone';
      this.#embedder = new EmbedderSide(config.embedder, () => this.#logger, 'ToolSearchProcessor', fallback);
    }
  }

  /** Called by Mastra when the processor is registered: its logger receives store warnings. */
  __registerMastra(mastra) {
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
      const description = docHandles[i] < 0 ? '' : formatDescription(catalog.descriptionAt(docHandles[i]));
      lines[i] = toolLine(name, description);
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
    const lexicalPreload = withEvidence && this.#preloadMode !== this.#config.mode;
    const over = lexicalPreload ? undefined : this.#embedder?.overrideFor(catalog.native);
    const vector = over ? await this.#embedder.queryVector(query) : undefined;
    if (!filter && !withEvidence && !vector) {
      // The common case reads triplets from one reused buffer: no typed arrays per search.
      const count = unfilteredHits(catalog, query, topK, minScore);
      const hits = hitBuffer;
      const results = [];
      const tools = [];
      for (let i = 0; i < count; i++) {
        const handle = hits[3 * i];
        results.push({
          name: catalog.idAt(handle),
          description: formatDescription(catalog.descriptionAt(hits[3 * i + 1])),
          score: Math.round(hits[3 * i + 2] * 100) / 100,
        });
        tools.push(catalog.toolAt(handle));
      }
      return { results, tools, evidence: undefined };
    }
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
        description: formatDescription(catalog.descriptionAt(hits.docHandles[i])),
        score: Math.round(hits.scores[i] * 100) / 100,
      })),
      tools: accepted.map((i) => catalog.toolAt(hits.handles[i])),
      evidence,
    };
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
      description: autoLoad ? SEARCH_DESCRIPTION_AUTO_LOAD : SEARCH_DESCRIPTION,
      inputSchema: schemas.searchInput,
      outputSchema: withReceipt ? schemas.searchOutputWithReceipt : schemas.searchOutput,
      execute: async ({ query }) => {
        this.#assertLive();
        const found = await this.#searchTools(catalog, query, requestContext);
        let results = found.results;
        if (results.length === 0) {
          return { results: [], message: `No tools found matching "${query}". Try different keywords.` };
        }
        if (!autoLoad) {
          const loaded = await this.#loadFromSearch(catalog, loadedNames, threadId, requestContext, query, results);
          if (loaded.length === 0) {
            return {
              results,
              message: `Found ${results.length} tool(s). Use load_tool with an exact toolName or a toolNames array to make them available.`,
            };
          }
          const output = { results, message: searchLoadedMessage(results.length, loaded) };
          if (storage === 'context') output.activation = { type: RECEIPT_TYPE, version: 1, loaded };
          return output;
        }
        if (this.#config.filter) {
          // Activation is a load: the 'load' phase must allow it, as load_tool would require.
          const loadable = [];
          for (let k = 0; k < results.length; k++) {
            if (await this.#isAllowed(found.tools[k], requestContext, 'load')) loadable.push(results[k]);
          }
          results = loadable;
          if (results.length === 0) {
            return { results: [], message: `No tools available to load matching "${query}". Try different keywords.` };
          }
        }
        const newlyLoaded = results.map((r) => r.name).filter((name) => !loadedNames.has(name));
        if (this.#shared) {
          const written = await this.#shared.addLoaded(newlyLoaded, threadId);
          if (!written.ok) {
            return {
              results,
              message:
                `Found ${results.length} tool(s) but could not load them right now ` +
                '(loaded-tool state is unavailable). Try again.',
            };
          }
        } else {
          this.#store.addLoaded(newlyLoaded, threadId);
        }
        for (const name of newlyLoaded) loadedNames.add(name);
        const output = {
          results,
          message:
            `Found and loaded ${results.length} tool(s): ${results.map((r) => r.name).join(', ')}. ` +
            `They are available on your next turn — call them directly.` +
            (newlyLoaded.length < results.length ? ' Some were already loaded.' : ''),
        };
        if (withReceipt) output.activation = { type: RECEIPT_TYPE, version: 1, loaded: results.map((r) => r.name) };
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
  async #preloadChoice(catalog, requestContext, query, { max: maxTools, minConfidence } = this.#config.preload) {
    if (!query.trim()) return [];
    const { results, tools, evidence } = await this.#searchTools(catalog, query, requestContext, true);
    const confidences = preloadShared.confidencesOf(this.#preloadMode, results, query, catalog.size, evidence);
    const chosen = [];
    for (let i = 0; i < results.length && chosen.length < maxTools; i++) {
      if (confidences[i] < minConfidence) break;
      const { name, description } = results[i];
      if (chosen.some((c) => c.name === name)) continue;
      if (!(await this.#isAllowed(tools[i], requestContext, 'load'))) continue;
      if (!(await this.#isAllowed(tools[i], requestContext, 'active'))) continue;
      chosen.push({ name, description, confidence: Math.round(confidences[i] * 1000) / 1000 });
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
    if (chosen.length === 0) return [];
    const names = chosen.map((c) => c.name);
    if (this.#shared) {
      const written = await this.#shared.addLoaded(names, threadId);
      if (!written.ok) return [];
    } else if (this.#config.storage !== 'context') {
      this.#store.addLoaded(names, threadId);
    }
    for (const name of names) loadedNames.add(name);
    const event = { threadId: threadId || 'default', query, trigger: 'message', tools: chosen.map(({ name, confidence }) => ({ name, confidence })) };
    preloadShared.notifyPreload(this.#config.preload.onPreload, event, this.#logger, 'ToolSearchProcessor');
    return chosen;
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
    const limits = { max: this.#config.preload.max, minConfidence: this.#config.preload.searchMinConfidence };
    const chosen = (await this.#preloadChoice(catalog, requestContext, query, limits)).filter((c) => listed.has(c.name) && !loadedNames.has(c.name));
    if (chosen.length === 0) return [];
    const names = chosen.map((c) => c.name);
    if (this.#shared) {
      const written = await this.#shared.addLoaded(names, threadId);
      if (!written.ok) return [];
    } else if (this.#config.storage !== 'context') {
      this.#store.addLoaded(names, threadId);
    }
    for (const name of names) loadedNames.add(name);
    const event = { threadId: threadId || 'default', query, trigger: 'search', tools: chosen.map(({ name, confidence }) => ({ name, confidence })) };
    preloadShared.notifyPreload(this.#config.preload.onPreload, event, this.#logger, 'ToolSearchProcessor');
    return names;
  }

  #makeLoadTool(catalog, loadedNames, threadId, requestContext) {
    const { createTool, z } = hostModulesOf(this);
    const schemas = schemasFor(z);
    return createTool({
      id: 'load_tool',
      description: LOAD_DESCRIPTION,
      inputSchema: schemas.loadInput,
      outputSchema: schemas.loadOutput,
      execute: async ({ toolName, toolNames }) => {
        this.#assertLive();
        const toolNamesProvided = toolNames !== undefined;
        if (toolNamesProvided && toolNames.length === 0 && !toolName) {
          return { success: false, message: 'toolNames array must not be empty.' };
        }
        let toLoad;
        if (toolNamesProvided && toolNames.length > 0) {
          toLoad = [...new Set(toolName ? [...toolNames, toolName] : toolNames)];
        } else if (toolName) {
          toLoad = [toolName];
        } else {
          return { success: false, message: 'You must provide either toolName (string) or toolNames (array) to load.' };
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

        if (toLoad.length === 1 && !toolNamesProvided) {
          const name = toLoad[0];
          if (unavailable.length > 0) {
            return {
              success: false,
              message: `Tool "${name}" could not be loaded right now (loaded-tool state is unavailable). Try again.`,
              toolName: name,
            };
          }
          if (notFound.length > 0) {
            const suggestions = await this.#suggestions(catalog, name, requestContext);
            const message =
              `Tool "${name}" not found.` +
              (suggestions.length > 0
                ? ` Did you mean: ${suggestions.slice(0, 3).join(', ')}?`
                : ' Use search_tools to find available tools.');
            return { success: false, message, toolName: name };
          }
          if (alreadyLoaded.length > 0) {
            return { success: true, message: `Tool "${name}" is already loaded and available.`, toolName: name };
          }
          return {
            success: true,
            message: `Tool "${name}" loaded successfully. It will be available on your next turn.`,
            toolName: name,
          };
        }

        const parts = [];
        if (loaded.length > 0) parts.push(`Loaded: ${loaded.join(', ')} — available on your next turn`);
        if (alreadyLoaded.length > 0) parts.push(`Already loaded: ${alreadyLoaded.join(', ')}`);
        if (notFound.length > 0) parts.push(`Not found: ${notFound.join(', ')}`);
        if (unavailable.length > 0) parts.push(`Not loaded (state unavailable, try again): ${unavailable.join(', ')}`);
        return {
          success: notFound.length === 0 && unavailable.length === 0,
          message: parts.join(' | '),
          loadedCount: loaded.length,
          loaded: loaded.length > 0 ? loaded : undefined,
          notFound: notFound.length > 0 ? notFound : undefined,
          alreadyLoaded: alreadyLoaded.length > 0 ? alreadyLoaded : undefined,
        };
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
    const threadId = threadIdOf(requestContext);
    // Snapshot of names loaded before this step; this step's meta-tools share and extend it.
    const loadedNames = new Set(
      this.#shared ? await this.#shared.loadedNames(threadId) : this.#store.loadedNames(threadId, args),
    );

    if (!messageList || typeof messageList.addSystem !== 'function') {
      throw new TypeError('ToolSearchProcessor.processInputStep: args.messageList must be a Mastra MessageList.');
    }
    messageList.addSystem(autoLoad ? SYSTEM_MESSAGE_AUTO_LOAD : SYSTEM_MESSAGE);
    if (this.#config.injectCatalog) {
      const list = await this.#catalogList(catalog, requestContext);
      if (list) messageList.addSystem((autoLoad ? CATALOG_HEADER_AUTO_LOAD : CATALOG_HEADER) + CATALOG_LIST_INTRO + list);
    }

    // Preload (ours, opt-in): the first step of each user message activates the tools its text
    // finds with confidence, so they are offered at this very step.
    if (this.#config.preload) {
      const first = args.stepNumber === 0;
      if (this.#config.storage === 'context') await this.#rederivePreloads(catalog, loadedNames, requestContext, args.messages, !first);
      if (first) {
        const preloaded = await this.#preload(catalog, loadedNames, threadId, requestContext, preloadShared.lastUserText(args.messages));
        if (preloaded.length > 0) messageList.addSystem(preloadMessage(preloaded));
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
      // (context storage: the messages' preloads, derived as every step derives them)
      if (this.#config.preload && this.#config.storage === 'context') await this.#rederivePreloads(catalog, names, requestContext, stepArgs.messages, true);
      return this.#loadedTools(catalog, names, requestContext);
    }
    const threadId = threadIdOf(args?.requestContext);
    const names = await this.#store.loadedNames(threadId, undefined);
    return this.#loadedTools(await this.#catalogForStep(args?.tools), names, args?.requestContext);
  }

  /**
   * Forgets a thread's loaded tools (in-memory storage; a no-op for context storage). With a
   * store, returns a promise of `{ ok, error? }` that never rejects (bounded like every call).
   */
  clearState(threadId = 'default') {
    if (this.#shared) return settledOf(this.#shared.guard.clear(sharedThreadKey(threadId, 'ToolSearchProcessor.clearState')));
    if (this.#store instanceof InMemoryNames) this.#store.native.clear(threadKey(threadId));
  }

  /**
   * Forgets every thread's loaded tools (in-memory storage; a no-op for context storage). With
   * a store: every thread of this store's namespace, as a promise of `{ ok, error? }`.
   */
  clearAllState() {
    if (this.#shared) return settledOf(this.#shared.guard.clearAll());
    if (this.#store instanceof InMemoryNames) this.#store.native.clearAll();
  }

  /**
   * Thread count and oldest access time of the store's state (ours): the store's `stats()`
   * with a store (null when it does not answer), else `getStateStats()`.
   */
  async getStoreStats() {
    this.#assertLive();
    if (!this.#shared) return this.getStateStats();
    const result = await this.#shared.guard.stats();
    return result.ok ? result.value : null;
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

  /** Stops the cleanup timer and releases all state. Safe to call more than once. */
  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#store.dispose();
    this.#overlayCache = undefined;
  }
}

/** A guarded store call's outcome as `{ ok, error? }`. */
async function settledOf(pending) {
  const result = await pending;
  return result.ok ? { ok: true } : { ok: false, error: result.error };
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
