'use strict';
// ToolSearchProcessor's catalog: the tools read into parallel arrays (what Rust needs: keys,
// ids, descriptions and, in enhanced modes, parameter texts), encoded for the crossing and
// built into a native index (inline, or on a libuv pool thread when large), and the Catalog
// that pairs a native index with the JS arrays its handles point into.

const native = require('../native.js');
const { decodeText, encodeText, encodeTexts } = require('../lossless.js');
const { host } = require('../host.js');
const { extractParamFields } = require('../schema-fields.js');
const { loadSemanticModel } = require('../semantic.js');
const { shortDescription } = require('../util.js');
const { META_TOOL_NAMES } = require('./messages.js');
const { optionError } = require('./options.js');

/** `tool.id` when it is a non-empty string: the reference indexes `tool.id || key`. */
function toolIdOf(tool) {
  const id = tool.id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

function toolDescriptionOf(tool) {
  const d = tool.description;
  return d ? String(d) : '';
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

/**
 * search_tools' results without a filter, evidence or a query vector (the common case): read
 * as triplets from the one reused buffer, so no typed arrays are made per search.
 */
function unfilteredResults(catalog, query, topK, minScore) {
  const count = unfilteredHits(catalog, query, topK, minScore);
  const hits = hitBuffer;
  const results = [];
  const tools = [];
  for (let i = 0; i < count; i++) {
    const handle = hits[3 * i];
    results.push({
      name: catalog.idAt(handle),
      description: shortDescription(catalog.descriptionAt(hits[3 * i + 1])),
      score: Math.round(hits[3 * i + 2] * 100) / 100,
    });
    tools.push(catalog.toolAt(handle));
  }
  return { results, tools, evidence: undefined };
}

// ---------------------------------------------------------------------------------------
// Catalogs: a native index plus the JS arrays its handles point into.

class Catalog {
  #size;
  #guarded;
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

  /**
   * What preload must not take on a guess (see the core's catalog/hubs.rs), worked out once per
   * catalog: `hubs`, names of the tools that come up for requests about other tools (never
   * loaded on a guess), and `long`, names of the tools whose description is over three times
   * the catalog's average length (loaded on a guess only with more confidence).
   */
  guarded() {
    if (!this.#guarded) {
      const handles = Uint32Array.from({ length: this.size }, (_, i) => i);
      const descriptions = encodeTexts(Array.from(handles, (h) => this.descriptionAt(h) ?? ''));
      const names = (found) => new Set(Array.from(found, (handle) => this.idAt(handle)));
      this.#guarded = { hubs: names(this.native.hubHandles(handles, descriptions)), long: names(native.longDescriptions(descriptions)) };
    }
    return this.#guarded;
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

module.exports = {
  Catalog,
  buildStaticCatalog,
  hybridModelFor,
  nativeStrings,
  nativeTools,
  overlayOffThread,
  readResolvedTools,
  readStaticTools,
  unfilteredResults,
};
