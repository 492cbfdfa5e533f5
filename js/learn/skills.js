'use strict';
// SkillSearchProcessor's `learn` option: the tools' evidence (js/learn/index.js: the native
// index, scopes, stores, decay, deletion) where the signal is a load_skill call the model made
// that loaded the skill. Preload and search_skills use it as the tools' do, more simply: a
// skill learning vouches for (learned confidence at least `minConfidence`) takes the larger of
// its two confidences for preload and comes first in search_skills' results ('enhanced' and
// 'hybrid'). A request unlike anything learned ranks and preloads exactly as without learning.

const { ToolLearning } = require('./index.js');
const messages = require('../skill-search/messages.js');

class SkillLearning {
  #config;
  #learning;

  /** `model`: the hybrid index's static model (its request vectors are compared too), or null. */
  constructor(config, model, getLogger) {
    this.#config = config;
    this.#learning = new ToolLearning(config, model, getLogger);
  }

  /**
   * Learns the step's load_skill calls that loaded their skill (not "already loaded", not "not
   * found"), each attributed to the last user message before it. Skills preload loaded are no
   * call of the model's and are never learned.
   */
  async observe(args) {
    return this.#learning.observeCalls(args, async (call) => {
      if (call.toolName !== 'load_skill') return undefined;
      const name = call.result?.skillName;
      if (typeof name !== 'string' || !name || call.result.success !== true) return undefined;
      return call.result.message === messages.skillLoaded(name).message ? name : undefined;
    });
  }

  /**
   * The skills learning vouches for `query` among those `known(name)` accepts (this scope's
   * skills), best first: `[{ name, confidence }]`.
   */
  strong(query, requestContext, known) {
    const strong = [];
    for (const [name, confidence] of this.#learning.votes(query, requestContext)) {
      if (confidence >= this.#config.minConfidence && known(name)) strong.push({ name, confidence });
    }
    return strong.sort((a, b) => b.confidence - a.confidence || (a.name < b.name ? -1 : 1));
  }

  forgetResource(resourceId) {
    return this.#learning.forgetResource(resourceId);
  }

  forgetAll() {
    return this.#learning.forgetAll();
  }

  stats() {
    return this.#learning.stats();
  }

  dispose() {
    this.#learning.dispose();
  }
}

module.exports = { SkillLearning };
