'use strict';
// ToolSearchProcessor's options: checked once in the constructor, with errors that name the
// option path, and turned into the processor's config.

const preloadShared = require('../preload.js');
const { embedderOptionsOf } = require('../embedder.js');
const { checkOptions } = require('../options.js');
const { describeValue } = require('../util.js');
const { assertStateStore } = require('../stores/index.js');
const { searchModeOf } = require('../semantic.js');
// learn (hook): options of js/learn/
const { LEARN_KEYS, learnOptionsOf } = require('../learn/options.js');

const DEFAULT_TTL_MS = 3_600_000;

function optionError(path, expected, value) {
  return new TypeError(`ToolSearchProcessor: ${path} must be ${expected}; received ${describeValue(value)}.`);
}

/** Every option this processor knows (on every host); others are warned about, not rejected. */
const OPTION_SCHEMA = {
  name: 'ToolSearchProcessor',
  keys: ['tools', 'search', 'storage', 'ttl', 'filter', 'includeResolvedTools', 'injectCatalog', 'preload', 'learn'],
  nested: { search: ['topK', 'minScore', 'autoLoad', 'mode', 'model', 'embedder', 'embedderTimeoutMs', 'embeddingCache'], preload: ['maxTools', 'minConfidence', 'searchMinConfidence', 'onPreload'], learn: LEARN_KEYS },
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
  const learn = learnOptionsOf(options.learn, 'ToolSearchProcessor'); // learn (hook)
  return {
    preload,
    learn,
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

module.exports = { normalizeOptions, optionError };
