import type { LoadedStateStore, StateStoreBindDefaults } from './index';

export interface MemoryStoreOptions {
  /** Idle TTL in ms, restarted by every load/add; 0 = never expire. @default the processor's `ttl` (1 hour) */
  ttlMs?: number;
  /** Clock (ms), for tests. @default Date.now */
  now?: () => number;
}

export interface MemoryLoadedStateStore extends LoadedStateStore {
  readonly kind: 'memory';
  readonly ttlMs: number;
  load(threadKey: string, options?: { signal?: AbortSignal }): Promise<string[]>;
  add(threadKey: string, names: readonly string[], options?: { signal?: AbortSignal }): Promise<void>;
  clear(threadKey: string, options?: { signal?: AbortSignal }): Promise<void>;
  clearAll(options?: { signal?: AbortSignal }): Promise<void>;
  stats(options?: { signal?: AbortSignal }): Promise<{ threadCount: number; oldestAccessTime: number | null }>;
  bind(defaults: StateStoreBindDefaults): MemoryLoadedStateStore;
}

/** A JS in-memory store with the reference semantics of the contract (per process). */
export function memoryStore(options?: MemoryStoreOptions): MemoryLoadedStateStore;
