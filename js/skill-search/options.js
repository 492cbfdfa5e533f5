'use strict';
// SkillSearchProcessor's options, checked in the constructor. The reference forwards most of
// them unchecked; these checks reject only values no host gives a meaning.

const { describeValue } = require('../util.js');
const { assertStateStore } = require('../stores/index.js');
const { host } = require('../host.js');
const { searchModeOf: checkSearchMode } = require('../semantic.js');
const { LEARN_KEYS } = require('../learn/options.js');

/** `options.blockingRefresh`: a boolean, or nullish for the host's default. */
function blockingRefreshOf(options) {
  const value = options?.blockingRefresh;
  if (value == null) return undefined;
  if (typeof value !== 'boolean') {
    throw new TypeError(
      `SkillSearchProcessor: options.blockingRefresh must be a boolean (true or false); received ${describeValue(value)}.`,
    );
  }
  return value;
}

/** The capability answers this processor follows: the installed host's (js/host.js). */
function capabilitiesOf() {
  return host.capabilities;
}

/**
 * `preload` defaults. Stricter than the tools' (one skill, 0.6): a skill's instructions are long,
 * so a wrong one costs far more prompt than a wrong tool definition. The confidence model is the
 * tools' (fitted on tool catalogs; no skill-retrieval set exists to fit one on).
 */
const PRELOAD_MAX_SKILLS = 1;
const PRELOAD_MIN_CONFIDENCE = 0.6;

/** Every option this processor knows (on every host); others are warned about, not rejected. */
const OPTION_SCHEMA = {
  name: 'SkillSearchProcessor',
  keys: ['workspace', 'search', 'ttl', 'blockingRefresh', 'storage', 'preload', 'learn'],
  nested: { search: ['topK', 'minScore', 'mode', 'model', 'embedder', 'embedderTimeoutMs', 'embeddingCache'], preload: ['maxSkills', 'minConfidence', 'onPreload'], learn: LEARN_KEYS },
  required: { workspace: 'a Mastra Workspace with skills' },
};

/**
 * `options.workspace` must be an object. A workspace without skills is accepted, as by the
 * host (every step then passes the tools through), but that is nearly always a setup mistake,
 * so it gets one warning.
 */
function checkWorkspace(workspace) {
  if (typeof workspace !== 'object' || Array.isArray(workspace)) {
    throw new TypeError(
      `SkillSearchProcessor: options.workspace must be a Mastra Workspace with skills; received ${describeValue(workspace)}.`,
    );
  }
  if (!workspace.skills) {
    console.warn(
      'SkillSearchProcessor: options.workspace has no skills, so search_skills and load_skill are not offered; ' +
        "create the Workspace with skills, e.g. new Workspace({ filesystem, skills: ['skills'] }).",
    );
  }
}

/**
 * `search.topK`, `search.minScore` and `ttl` must be numbers when given (the host forwards them
 * unchecked, so a string or object fails somewhere inside a search or never expires state).
 * Values the host gives a meaning stay valid: `topK` 0, any `minScore`, `ttl` <= 0 (no expiry).
 */
function checkNumbers(options) {
  const checks = [
    ['options.search.topK', options.search?.topK, (v) => Number.isInteger(v) && v >= 0, 'a non-negative integer'],
    ['options.search.minScore', options.search?.minScore, Number.isFinite, 'a finite number'],
    ['options.ttl', options.ttl, (v) => typeof v === 'number' && !Number.isNaN(v), 'a number of milliseconds (0 or less: never expire)'],
  ];
  for (const [path, value, valid, expected] of checks) {
    if (value === undefined || value === null) continue;
    if (typeof value !== 'number' || !valid(value)) {
      throw new TypeError(`SkillSearchProcessor: ${path} must be ${expected}; received ${describeValue(value)}.`);
    }
  }
  const search = options.search;
  if (search !== undefined && search !== null && (typeof search !== 'object' || Array.isArray(search))) {
    throw new TypeError(`SkillSearchProcessor: options.search must be an object; received ${describeValue(search)}.`);
  }
}

/**
 * `options.storage` (ours on every host; the reference keeps loaded skills in memory only):
 * 'in-memory' (default) or a state store such as redisStore(client). Returns the store or
 * undefined for in-memory.
 */
function storageOf(options) {
  const storage = options?.storage ?? 'in-memory';
  if (storage === 'in-memory') return undefined;
  const expected = "'in-memory' or a state store such as redisStore(client)";
  if (storage === null || (typeof storage !== 'object' && typeof storage !== 'function')) {
    throw new TypeError(`SkillSearchProcessor: options.storage must be ${expected}; received ${describeValue(storage)}.`);
  }
  try {
    assertStateStore(storage, 'options.storage');
  } catch (error) {
    // The store layer's message names 'context' too, which skills do not have.
    throw new TypeError(
      `SkillSearchProcessor: options.storage must be ${expected}; ${error.message.replace(/^.*; received /, 'received ')}`,
    );
  }
  return storage;
}

/** `options.search.mode` (and `search.model`), validated here: the reference has no such options to mirror. */
function searchModeOf(options) {
  return checkSearchMode(options?.search, 'SkillSearchProcessor');
}

/** JS `ToNumber` for the options the reference compares numerically. */
function toNumber(value) {
  return typeof value === 'number' ? value : Number(value);
}

module.exports = {
  OPTION_SCHEMA,
  PRELOAD_MAX_SKILLS,
  PRELOAD_MIN_CONFIDENCE,
  blockingRefreshOf,
  capabilitiesOf,
  checkNumbers,
  checkWorkspace,
  searchModeOf,
  storageOf,
  toNumber,
};
