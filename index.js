'use strict';
// Package entry (CommonJS). Each processor lives in js/<name>.js over the native binding.
const { ToolSearchProcessor } = require('./js/tool-search.js');
const { ToolCallFilter } = require('./js/tool-call-filter.js');
const { SkillSearchProcessor } = require('./js/skill-search.js');
// Shared loaded-state stores for `storage:` (js/stores/): plain JS, no native code.
const { redisStore } = require('./js/stores/redis.js');
const { memoryStore } = require('./js/stores/memory.js');
// Shared vectors for `search.embeddingCache` (js/stores/embedding-cache.js).
const { redisEmbeddingCache } = require('./js/stores/embedding-cache.js');
// A shared store for `learn.store` (js/learn/redis-store.js).
const { redisLearnStore } = require('./js/learn/redis-store.js');

module.exports = {
  ToolSearchProcessor,
  ToolCallFilter,
  SkillSearchProcessor,
  redisStore,
  memoryStore,
  redisEmbeddingCache,
  redisLearnStore,
};
