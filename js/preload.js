'use strict';

const { describeValue, textKey } = require('./util.js');

// What both processors' `preload` share: its options, the user text it searches, the guarded
// onPreload call, and its confidence.
//
// Confidence: the estimated probability that a search hit is a tool the request needs.
// Raw scores cannot be compared across modes (BM25 scores grow with the catalog and the query;
// hybrid scores are bounded) nor across catalogs, so the estimate is a logistic model per mode
// over features that travel: the hit's score relative to the best, the best's lead over the
// runner-up, the hit's lead over the next, whether it is the best, its absolute score (raw for
// hybrid, log-scaled for the lexical modes), the catalog's size, the third hit relative to the
// best, how many hits there are, the request's length and script, and in 'hybrid' what the hit
// rests on (the model's plain cosine, its lexical score). The weights are fitted on the
// development halves (MetaTool, the multilingual set, the real MCP servers) over whole catalogs
// and sub-catalogs of 5, 15 and 50 tools, each request searched once where its tool is and once
// where it is not, with small talk that no tool serves (bench/preload-calibration.mjs --fit).

/** Weights per search mode, in confidenceFeatures' order, bias last. */
const PRELOAD_CONFIDENCE_MODELS = Object.freeze({
  compatible: [0.5526, -0.2743, 1.1469, 0.6965, 1.8118, -0.458, -0.6095, -0.212, -0.8391, 0, 0, 0, 0.7576, 0.3082, 0.2502, -0.9665],
  enhanced: [0.7687, -0.5254, 0.9805, 0.7123, 1.6623, -0.8457, -0.1355, -0.6971, -0.4079, 0, 0, 0, 0.817, -0.3072, 0.0761, -1.3586],
  hybrid: [1.0281, -0.4371, 1.1972, 0.9359, 0.4064, -0.4683, -0.4854, -0.4897, -0.4207, 2.2195, 0.7926, -0.1442, 1.545, -0.2021, -0.153, -1.6579],
});

/**
 * The features of the hit at `rank` of `scores` (search_tools' scores, best first, at most 5) for
 * `mode`, for `query` in a catalog of `size` tools; `evidence` (hybrid) per hit `{ lexical, cosine }`.
 */
function confidenceFeatures(mode, scores, rank, query, size, evidence) {
  const best = scores[0] > 0 ? scores[0] : 1e-9;
  const score = Math.max(0, scores[rank] ?? 0);
  const next = Math.max(0, scores[rank + 1] ?? 0);
  const runnerUp = Math.max(0, scores[1] ?? 0);
  return [
    score / best,
    (best - runnerUp) / best,
    (score - next) / best,
    rank === 0 ? 1 : 0,
    mode === 'hybrid' ? score : Math.log1p(score),
    Math.log(Math.max(1, size)),
    Math.max(0, scores[2] ?? 0) / best,
    scores.length / 5,
    Math.log1p(String(query).length),
    // What a hybrid hit rests on: a fused score cannot tell a lexical match the model agrees
    // with from the model's best guess for a request the catalog cannot serve.
    evidence ? evidence[rank].cosine : 0,
    evidence ? Math.log1p(evidence[rank].lexical) : 0,
    evidence && evidence[rank].lexical > 0 ? 1 : 0,
    // A lead means more on strong evidence than on weak.
    (evidence ? evidence[rank].cosine : Math.log1p(score) / 4) * ((best - runnerUp) / best),
    // The request's script: the same score is not equally reliable in every language (Korean's
    // particles and loanwords in Hangul match less of a catalog than Latin or Han text does).
    ...scriptShares(query),
  ];
}

/** The shares of `text`'s letters that are Hangul, and Han or kana (its first 2,000 characters tell). */
function scriptShares(text) {
  const head = String(text).slice(0, 2000);
  // (every rank of one search asks for the same request's shares)
  if (head === lastShares.text) return lastShares.shares;
  const count = (pattern) => head.match(pattern)?.length ?? 0;
  const letters = count(/\p{L}/gu);
  const shares = letters === 0
    ? [0, 0]
    : [count(/(?=\p{L})\p{Script=Hangul}/gu) / letters, count(/(?=\p{L})[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu) / letters];
  lastShares = { text: head, shares };
  return shares;
}
let lastShares = { text: undefined, shares: [0, 0] };

/** The logistic model `weights` applied to `features`. */
function preloadConfidence(weights, features) {
  let z = weights[weights.length - 1];
  for (let i = 0; i < features.length; i++) z += weights[i] * features[i];
  return 1 / (1 + Math.exp(-z));
}

/**
 * Confidence of each of `results` (search_tools' results, best first) under `mode`'s model, for
 * `query` in a catalog of `size` tools. (Called through this module's exports, so that
 * bench/preload-calibration.mjs can watch what preload sees.)
 */
function confidencesOf(mode, results, query, size, evidence) {
  const weights = PRELOAD_CONFIDENCE_MODELS[mode];
  const scores = results.map((r) => r.score);
  const confidences = scores.map((_, rank) => preloadConfidence(weights, confidenceFeatures(mode, scores, rank, query, size, evidence)));
  // One tool per sibling family: a hit whose name differs by one word from a better hit's
  // (`zones_list` under `zones_get`, `delete_object` under `delete_bucket`) is the alternative
  // the ranking already decided against, and offered beside it, it is the wrong call a model may
  // make; a request that needs it can still search. (data/mcp dev, hybrid, every request over
  // the whole catalog: wrong preloads 42 -> 29, none right lost; bench/agent-steps.mjs --split dev:
  // preload precision .87 -> .93, solved and calls unchanged; MetaTool and the multilingual set,
  // whose names have no such families, unchanged.)
  const words = results.map((r) => nameWords(r.name));
  for (let i = 1; i < results.length; i++) {
    for (let j = 0; j < i; j++) {
      if (nameSiblings(words[j], words[i])) {
        confidences[i] = 0;
        break;
      }
    }
  }
  return confidences;
}

/** The words of a tool name (snake_case, kebab-case, camelCase, dotted, `server__tool`), lowercased, plural `s` dropped. */
function nameWords(name) {
  return String(name)
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .map((w) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w));
}

/**
 * Whether two names (their nameWords) are siblings: they share at least two words and each has
 * at most one word the other lacks (one other action or object: `x_list` / `x_get`,
 * `r2_delete_bucket` / `r2_delete_object`, `delete_cycle` / `delete_cycle_issue`).
 */
function nameSiblings(a, b) {
  const onlyA = a.filter((w) => !b.includes(w)).length;
  const onlyB = b.filter((w) => !a.includes(w)).length;
  const shared = a.filter((w) => b.includes(w)).length;
  return shared >= 2 && onlyA <= 1 && onlyB <= 1 && onlyA + onlyB > 0;
}

/**
 * A processor's `options.preload` as `{ max, minConfidence, onPreload }`, or undefined when off.
 * `kind` names the processor ('ToolSearchProcessor'), `countKey` its cap ('maxTools'), with
 * the defaults `max` and `minConfidence`.
 */
function preloadOptionsOf(preload, { kind, countKey, max, minConfidence, searchMinConfidence }) {
  if (preload === undefined || preload === false) return undefined;
  const fail = (path, expected, value) => new TypeError(`${kind}: ${path} must be ${expected}; received ${describeValue(value)}.`);
  const spec = preload === true ? {} : preload;
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) {
    throw fail('options.preload', `true, false or { ${countKey}?, minConfidence?, ${searchMinConfidence === undefined ? '' : 'searchMinConfidence?, '}onPreload? }`, preload);
  }
  const count = spec[countKey] ?? max;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > 20) {
    throw fail(`options.preload.${countKey}`, 'an integer from 1 to 20', count);
  }
  const threshold = spec.minConfidence ?? minConfidence;
  if (typeof threshold !== 'number' || !(threshold >= 0 && threshold <= 1)) {
    throw fail('options.preload.minConfidence', 'a number from 0 to 1', threshold);
  }
  // (ToolSearchProcessor: the confidence a search_tools hit needs to be loaded at once; false: never)
  let searchThreshold;
  if (searchMinConfidence !== undefined) {
    searchThreshold = spec.searchMinConfidence ?? searchMinConfidence;
    if (searchThreshold !== false && (typeof searchThreshold !== 'number' || !(searchThreshold >= 0 && searchThreshold <= 1))) {
      throw fail('options.preload.searchMinConfidence', 'a number from 0 to 1, or false', searchThreshold);
    }
  }
  const onPreload = spec.onPreload;
  if (onPreload !== undefined && typeof onPreload !== 'function') {
    throw fail('options.preload.onPreload', `a function ({ threadId, query, ${countKey === 'maxTools' ? 'tools' : 'skills'} }) => void`, onPreload);
  }
  return searchThreshold === undefined
    ? { max: count, minConfidence: threshold, onPreload }
    : { max: count, minConfidence: threshold, searchMinConfidence: searchThreshold, onPreload };
}

/** Calls `onPreload(event)`; a throw is logged, never propagated (the preload stands). */
function notifyPreload(onPreload, event, logger, kind) {
  if (!onPreload) return;
  try {
    onPreload(event);
  } catch (error) {
    (logger ?? console).warn(`${kind}: preload.onPreload threw (${error?.message ?? error}); the preload stands.`);
  }
}

/** The text of a user message (Mastra's stored format, or a plain `{ role, content }`), or ''. */
function userText(message) {
  const content = message.content;
  if (typeof content === 'string') return content;
  const parts = Array.isArray(content?.parts) ? content.parts : Array.isArray(content) ? content : [];
  const text = parts
    .filter((part) => part && part.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text)
    .join('\n');
  return text || (typeof content?.content === 'string' ? content.content : '');
}

/** The texts of a step's user messages, oldest first. */
function userTexts(messages) {
  if (!Array.isArray(messages)) return [];
  return messages.filter((m) => m && m.role === 'user').map(userText);
}

/** The text of the last user message of a step's messages, or ''. */
function lastUserText(messages) {
  const texts = userTexts(messages);
  return texts.length > 0 ? texts[texts.length - 1] : '';
}

/** Messages a catalog remembers the preload ranking of, and the characters kept of a key. */
const MEMO_ENTRIES = 4096;
const MEMO_KEY_CHARS = 256;

/**
 * What preload's search made of each message text, per catalog: context storage derives every
 * earlier message's preloads again at each step, and without this a step's cost (searches,
 * embedder calls) grew with the conversation. Bounded: at most MEMO_ENTRIES texts, the oldest
 * forgotten first, long texts kept under their hash. `scope` (e.g. the embedder's vectors for
 * the catalog) must be the same object for a remembered ranking to be used.
 */
class RankingMemo {
  #entries = new Map();
  #scope;

  get(text, scope) {
    if (scope !== this.#scope) return undefined;
    return this.#entries.get(textKey(text, MEMO_KEY_CHARS));
  }

  set(text, scope, ranking) {
    if (scope !== this.#scope) {
      this.#entries.clear();
      this.#scope = scope;
    }
    const key = textKey(text, MEMO_KEY_CHARS);
    this.#entries.delete(key);
    this.#entries.set(key, ranking);
    if (this.#entries.size > MEMO_ENTRIES) this.#entries.delete(this.#entries.keys().next().value);
  }

  get size() {
    return this.#entries.size;
  }
}

module.exports = {
  MEMO_ENTRIES,
  RankingMemo,
  PRELOAD_CONFIDENCE_MODELS,
  confidenceFeatures,
  preloadConfidence,
  confidencesOf,
  preloadOptionsOf,
  notifyPreload,
  userTexts,
  lastUserText,
};
