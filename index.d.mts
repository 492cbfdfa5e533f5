// Types for the ESM entry (index.mjs); the same declarations as the CommonJS entry's.
export * from './js/tool-search.js';
export * from './js/tool-call-filter.js';
export * from './js/skill-search.js';
export type {
  LoadedStateStore,
  StateStoreCallOptions,
  StateStoreStats,
  StateStoreKind,
  StateStoreBindDefaults,
} from './js/stores/index.js';
export { redisStore } from './js/stores/redis.js';
export type { RedisStoreClient, RedisStoreOptions, RedisLoadedStateStore } from './js/stores/redis.js';
export { memoryStore } from './js/stores/memory.js';
export type { MemoryStoreOptions, MemoryLoadedStateStore } from './js/stores/memory.js';
