/**
 * Loaded-state stores: where ToolSearchProcessor / SkillSearchProcessor keep each thread's
 * loaded tool / skill names when the state must outlive one process (e.g. Redis).
 *
 * A store maps a thread key to an insertion-ordered set of names with an idle TTL that
 * every `load` / `add` restarts. Implement this interface to plug in any backend; names a
 * store returns are always re-checked by the processor against its catalog and its `filter`
 * (`'load'` phase) — a store is not a trust boundary.
 */
export interface StateStoreCallOptions {
  /** Aborted when the processor stops waiting (timeout or step abort). Drop the work if you can. */
  signal?: AbortSignal;
}

export interface StateStoreStats {
  threadCount: number;
  /** `Date.now()`-style time of the least recently used thread, or null when unknown/empty. */
  oldestAccessTime: number | null;
}

/** The processor kinds a store can be bound for. */
export type StateStoreKind = 'tool-search' | 'skill-search';

export interface StateStoreBindDefaults {
  /** Which processor uses the store: the default key namespace. */
  kind: StateStoreKind;
  /** The processor's `ttl` option: the idle TTL when the store was given none. */
  ttlMs?: number;
}

export interface LoadedStateStore {
  /** Implementation name for messages, e.g. 'redis', 'memory'. */
  readonly kind?: string;
  /** Bound (ms) the processor applies to each call; default 500. */
  readonly timeoutMs?: number;
  /** The thread's names in first-insertion order; restarts its idle TTL; never creates state. */
  load(threadKey: string, options?: StateStoreCallOptions): Promise<string[]>;
  /** Appends names not yet present (a present name keeps its position); restarts the TTL; `[]` is a no-op. */
  add(threadKey: string, names: readonly string[], options?: StateStoreCallOptions): Promise<void>;
  /** Forgets one thread. */
  clear(threadKey: string, options?: StateStoreCallOptions): Promise<void>;
  /** Forgets every thread of this store (its namespace only). */
  clearAll(options?: StateStoreCallOptions): Promise<void>;
  /** Optional: thread count and oldest access time. */
  stats?(options?: StateStoreCallOptions): Promise<StateStoreStats>;
  /**
   * Optional: called once by each processor given this store; returns the store that
   * processor uses, with the defaults the user left unset filled in (key namespace per
   * `kind`, the processor's `ttl`).
   */
  bind?(defaults: StateStoreBindDefaults): LoadedStateStore;
}

/** A store call that did not settle within its bound. */
export class StoreTimeoutError extends Error {
  readonly name: 'StoreTimeoutError';
  readonly operation: string;
  readonly timeoutMs: number;
}

/** A store reply that breaks the contract (e.g. `load` resolved to a non-array). */
export class StoreReplyError extends Error {
  readonly name: 'StoreReplyError';
}

export const DEFAULT_TIMEOUT_MS: 500;

/** Throws a TypeError naming `optionName` unless `value` implements {@link LoadedStateStore}. */
export function assertStateStore<T>(value: T, optionName?: string): T & LoadedStateStore;

/** `store.bind(defaults)` when the store has a bind hook, else the store itself (validated). */
export function bindStateStore(store: LoadedStateStore, defaults: StateStoreBindDefaults, optionName?: string): LoadedStateStore;

/**
 * Runs `fn(signal)` bounded by `timeoutMs`: rejects with {@link StoreTimeoutError} after the
 * bound (aborting `signal`), swallowing any later rejection of `fn`.
 */
export function runBounded<T>(
  operation: string,
  fn: (signal: AbortSignal) => Promise<T> | T,
  timeoutMs: number,
  outerSignal?: AbortSignal,
): Promise<T>;

export type BoundedResult<T> = { ok: true; value: T } | { ok: false; error: unknown; timedOut: boolean };

/** {@link runBounded} that never rejects. */
export function withTimeout<T>(
  fn: (signal: AbortSignal) => Promise<T> | T,
  timeoutMs?: number,
  options?: { operation?: string; signal?: AbortSignal },
): Promise<BoundedResult<T>>;

/** Anything with a Mastra-logger-like `warn(message, meta)`. */
export interface WarnLogger {
  warn(message: string, ...args: unknown[]): unknown;
}

export interface OutageWarner {
  /** Warns (through `getLogger()` or console) unless this outage was already reported; returns whether it warned. */
  fail(operation: string, error: unknown): boolean;
  /** Ends the outage: the next failure warns again. */
  ok(): void;
  readonly failing: boolean;
}

export function createOutageWarner(getLogger: (() => WarnLogger | undefined) | undefined, label: string): OutageWarner;

export type GuardedLoad =
  | { ok: true; names: string[] }
  | { ok: false; names: []; error: unknown; timedOut: boolean };
export type GuardedWrite = { ok: true } | { ok: false; error: unknown; timedOut: boolean };

export interface GuardedStateStore {
  readonly store: LoadedStateStore;
  readonly timeoutMs: number;
  /** Warns once per outage of the step calls (load, add). */
  readonly warner: OutageWarner;
  /** Warns once per outage of the admin calls (clear, clearAll, stats), apart from the steps. */
  readonly adminWarner: OutageWarner;
  /** Never rejects; a failure reads as nothing loaded (and warns once per outage). */
  load(threadKey: string): Promise<GuardedLoad>;
  /** Never rejects; `ok: false` means the names may not have been stored. */
  add(threadKey: string, names: readonly string[]): Promise<GuardedWrite>;
  clear(threadKey: string): Promise<BoundedResult<void>>;
  /** Bounded by 20x the per-call bound (many round trips). */
  clearAll(): Promise<BoundedResult<void>>;
  stats(): Promise<BoundedResult<StateStoreStats>>;
}

/**
 * Wraps a store for a processor: every call bounded (store's `timeoutMs`, else
 * `options.timeoutMs`, else 500 ms), typed results instead of rejections, one warning per
 * outage through `getLogger()` (else console.warn), prefixed by `label`.
 */
export function guardStateStore(
  store: LoadedStateStore,
  options?: { getLogger?: () => WarnLogger | undefined; label?: string; timeoutMs?: number },
): GuardedStateStore;
