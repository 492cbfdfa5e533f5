'use strict';
// `options.learn` of ToolSearchProcessor: checked once in the constructor, with errors that
// name the option path (as every other option's).

const { describeValue } = require('../util.js');

const LEARN_KEYS = ['scope', 'store', 'seed', 'maxExamples', 'maxBytes', 'halfLifeDays', 'minResources', 'minConfidence', 'minSimilarity'];

const DEFAULTS = Object.freeze({
  scope: 'resource',
  maxExamples: 20_000,
  maxBytes: 16 * 1024 * 1024,
  // A habit not seen for a month weighs half; three months, an eighth.
  halfLifeDays: 30,
  // Scope 'global': a tool is learned for everyone once this many distinct resources taught it.
  minResources: 2,
  // The learned confidence a tool needs to be preloaded or moved up in search_tools' results.
  minConfidence: 0.45,
  // Past requests less similar than this (TF-IDF cosine of their terms) do not vote.
  minSimilarity: 0.2,
});

// learnstore (hook): a shared learning store's contract (js/learn/sync.js, docs/learning.md).
const { learnStoreProblem, STORE_SHAPE } = require('./sync.js');

function learnOptionsOf(learn, kind) {
  if (learn === undefined || learn === false) return undefined;
  const fail = (path, expected, value) => new TypeError(`${kind}: options.learn${path} must be ${expected}; received ${describeValue(value)}.`);
  const spec = learn === true ? {} : learn;
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) {
    throw fail('', "true, false or { scope?: 'resource' | 'global', store?, seed?, maxExamples?, maxBytes?, halfLifeDays?, minResources?, minConfidence?, minSimilarity? }", learn);
  }
  const scope = spec.scope ?? DEFAULTS.scope;
  if (scope !== 'resource' && scope !== 'global') throw fail('.scope', "'resource' or 'global'", scope);
  const store = spec.store ?? 'in-memory';
  if (store !== 'in-memory') {
    const problem = learnStoreProblem(store);
    if (problem !== undefined) {
      throw new TypeError(`${kind}: options.learn.store must be 'in-memory' or a learning store ${STORE_SHAPE} such as redisLearnStore({ client }) (docs/learning.md); received ${problem}.`);
    }
  }
  const positiveInteger = (key) => {
    const value = spec[key] ?? DEFAULTS[key];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw fail(`.${key}`, 'a positive integer', value);
    return value;
  };
  const maxExamples = positiveInteger('maxExamples');
  const maxBytes = positiveInteger('maxBytes');
  const minResources = positiveInteger('minResources');
  const halfLifeDays = spec.halfLifeDays ?? DEFAULTS.halfLifeDays;
  if (typeof halfLifeDays !== 'number' || !(halfLifeDays > 0)) {
    throw fail('.halfLifeDays', 'a positive number of days (Infinity: no decay)', halfLifeDays);
  }
  const unit = (key) => {
    const value = spec[key] ?? DEFAULTS[key];
    if (typeof value !== 'number' || !(value >= 0 && value <= 1)) throw fail(`.${key}`, 'a number from 0 to 1', value);
    return value;
  };
  const minConfidence = unit('minConfidence');
  const minSimilarity = unit('minSimilarity');
  const seed = seedOf(spec.seed, fail, kind === 'SkillSearchProcessor' ? 'skill names' : 'tool ids');
  return { scope, store, seed, maxExamples, maxBytes, halfLifeMs: halfLifeDays * 86_400_000, minResources, minConfidence, minSimilarity };
}

/** `learn.seed` as [tool, request] pairs. */
function seedOf(seed, fail, keys) {
  if (seed === undefined) return [];
  if (seed === null || typeof seed !== 'object' || Array.isArray(seed)) {
    throw fail('.seed', `an object mapping ${keys} to example requests, like { weather: ['is it raining in Oslo?'] }`, seed);
  }
  const pairs = [];
  for (const [tool, requests] of Object.entries(seed)) {
    if (!Array.isArray(requests) || requests.some((r) => typeof r !== 'string')) {
      throw fail(`.seed[${JSON.stringify(tool)}]`, 'an array of request strings', requests);
    }
    for (const request of requests) pairs.push([tool, request]);
  }
  return pairs;
}

module.exports = { LEARN_KEYS, learnOptionsOf };
