'use strict';

// Preload's confidence: the estimated probability that a search hit is a tool the request needs.
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
  hybrid: [1.169, -0.1929, 1.097, 0.6575, 0.5596, -0.6694, -0.3528, -0.3804, -0.5409, 1.9899, 1.0839, -0.3606, 1.2938, -0.7964],
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

module.exports = { PRELOAD_CONFIDENCE_MODELS, confidenceFeatures, preloadConfidence, confidencesOf };
