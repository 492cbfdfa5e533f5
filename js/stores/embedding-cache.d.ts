import type { RedisStoreClient } from './redis';

/**
 * A shared cache of embedding vectors for `search.embeddingCache`: several processes embed a
 * catalog once between them. Keys are the package's (a hash of the embedding model's identity
 * and the text); values are base64 of each vector's little-endian float32 bytes.
 */
export interface EmbeddingCache {
  /** One value per key, `null`/`undefined` when the cache has none. */
  get(keys: string[], options?: { signal?: AbortSignal }): PromiseLike<Array<string | null | undefined>>;
  set(entries: Array<[key: string, value: string]>, options?: { signal?: AbortSignal }): PromiseLike<void>;
}

export interface RedisEmbeddingCacheOptions {
  /** Key namespace (`<keyPrefix><hash>`); must end with a separator such as ':'. Use another one after changing a model's output size. @default 'mastra:embedding:' */
  keyPrefix?: string;
  /** Bound of each round trip (1,000 keys) in ms. @default 500 */
  timeoutMs?: number;
  /** Expiry of each vector in ms, renewed when a process writes it again; 0 = none. @default 2592000000 (30 days) */
  ttlMs?: number;
}

export interface RedisEmbeddingCache extends EmbeddingCache {
  readonly kind: 'redis-embedding-cache';
  readonly keyPrefix: string;
  readonly timeoutMs: number;
  readonly ttlMs: number;
  get(keys: string[], options?: { signal?: AbortSignal }): Promise<Array<string | null>>;
  set(entries: Array<[key: string, value: string]>, options?: { signal?: AbortSignal }): Promise<void>;
}

/** Embedding vectors in Redis (MGET to read, SET … PX to write; plain string values). */
export function redisEmbeddingCache(client: RedisStoreClient, options?: RedisEmbeddingCacheOptions): RedisEmbeddingCache;

export const DEFAULT_EMBEDDING_TTL_MS: 2592000000;
