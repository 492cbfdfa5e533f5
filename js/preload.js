'use strict';

const { describeValue } = require('./util.js');

// What both processors' `preload` share: its options, the user text it searches, the guarded
// onPreload call, and its confidence.
//
// Confidence: the estimated probability that a search hit is a tool the request needs.
// Raw scores cannot be compared across modes (BM25 scores grow with the catalog and the query;
// hybrid scores are bounded) nor across catalogs, so the estimate is a logistic model per mode
// over features that travel: the hit's score relative to the best, the best's lead over the
// runner-up, the hit's lead over the next, whether it is the best, its absolute score (raw for
// hybrid, log-scaled for the lexical modes), the catalog's size, the third hit relative to the
// best, how many hits there are, the request's length, and in 'hybrid' what the hit rests on
// (the model's plain cosine, its lexical score). The weights are fitted on
// the development halves over whole catalogs and sub-catalogs of 5, 15 and 50 tools, each request
// searched once where its tool is and once where it is not (bench/preload-calibration.mjs --fit).

/** Weights per search mode, in confidenceFeatures' order, bias last. */
const PRELOAD_CONFIDENCE_MODELS = Object.freeze({
  compatible: [0.5521, -0.1412, 1.1326, 0.5684, 1.8169, -0.4767, -0.642, -0.158, -0.9219, 0, 0, 0, 0.713, -0.4574],
  enhanced: [0.7994, -0.2751, 0.8669, 0.4875, 2.043, -1.0848, -0.079, -0.5609, -0.5883, 0, 0, 0, 0.5329, -0.4763],
  hybrid: [1.1306, -0.207, 1.1556, 0.7587, 0.7582, -0.5386, -0.3568, -0.383, -0.5838, 2.3312, 0.8456, -0.2651, 1.437, -1.0441],
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
  ];
}

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
  return scores.map((_, rank) => preloadConfidence(weights, confidenceFeatures(mode, scores, rank, query, size, evidence)));
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

module.exports = {
  PRELOAD_CONFIDENCE_MODELS,
  confidenceFeatures,
  preloadConfidence,
  confidencesOf,
  preloadOptionsOf,
  notifyPreload,
  userTexts,
  lastUserText,
};
