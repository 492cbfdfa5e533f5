import type { LoadedStateStore, StateStoreBindDefaults, StateStoreKind } from './index';

/**
 * A connected client: node-redis v5 (`createClient()` from `redis`, after `connect()`) or
 * ioredis (`new Redis(...)`). Typed structurally so neither package is needed to compile.
 */
export type RedisStoreClient =
  | { sendCommand(args: string[], options?: { abortSignal?: AbortSignal }): Promise<unknown>; readonly isOpen: boolean }
  | { call(command: string, ...args: (string | number | Uint8Array)[]): Promise<unknown>; readonly status: string };

export interface RedisStoreOptions {
  /**
   * Key namespace; keys are `<keyPrefix><encoded thread>`. Default: `mastra:tool-search:` /
   * `mastra:skill-search:` for the processor that binds the store (`mastra:loaded:` unbound).
   * Must end with a separator such as ':' (not a letter, digit, '_', '.', '~', '%' or '-').
   * An explicit prefix serves one processor kind only.
   */
  keyPrefix?: string;
  /** Bound of each round trip in ms. @default 500 */
  timeoutMs?: number;
  /** Idle TTL in ms, restarted by every load/add; 0 = never expire. @default the processor's `ttl` (1 hour) */
  ttlMs?: number;
}

export interface RedisLoadedStateStore extends LoadedStateStore {
  readonly kind: 'redis';
  /** Which client was recognised. */
  readonly client: 'redis' | 'ioredis';
  readonly keyPrefix: string;
  readonly ttlMs: number;
  readonly timeoutMs: number;
  /** The processor kind this store was bound for (undefined when unbound). */
  readonly processorKind: StateStoreKind | undefined;
  /** The Redis key holding a thread's names. */
  keyFor(threadKey: string): string;
  load(threadKey: string, options?: { signal?: AbortSignal }): Promise<string[]>;
  add(threadKey: string, names: readonly string[], options?: { signal?: AbortSignal }): Promise<void>;
  clear(threadKey: string, options?: { signal?: AbortSignal }): Promise<void>;
  clearAll(options?: { signal?: AbortSignal }): Promise<void>;
  stats(options?: { signal?: AbortSignal }): Promise<{ threadCount: number; oldestAccessTime: number | null }>;
  bind(defaults: StateStoreBindDefaults): RedisLoadedStateStore;
}

/** Loaded-tool / loaded-skill state in Redis (one sorted set per thread, one round trip per call). */
export function redisStore(client: RedisStoreClient, options?: RedisStoreOptions): RedisLoadedStateStore;

/** The key segment for a thread key: letters, digits, `_ . ~ -` kept, everything else %-encoded. */
export function encodeThreadKey(threadKey: string): string;

export const DEFAULT_TTL_MS: 3600000;
