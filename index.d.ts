export * from './js/tool-search';
export * from './js/tool-call-filter';
export * from './js/skill-search';
export type {
  LoadedStateStore,
  StateStoreCallOptions,
  StateStoreStats,
  StateStoreKind,
  StateStoreBindDefaults,
} from './js/stores/index';
export { redisStore } from './js/stores/redis';
export type { RedisStoreClient, RedisStoreOptions, RedisLoadedStateStore } from './js/stores/redis';
export { memoryStore } from './js/stores/memory';
export type { MemoryStoreOptions, MemoryLoadedStateStore } from './js/stores/memory';
export { redisEmbeddingCache } from './js/stores/embedding-cache';
export type { EmbeddingCache, RedisEmbeddingCache, RedisEmbeddingCacheOptions } from './js/stores/embedding-cache';
export { redisLearnStore } from './js/learn/redis-store';
export type { LearnStore, LearnRecord, RedisLearnStore, RedisLearnStoreOptions } from './js/learn/redis-store';
