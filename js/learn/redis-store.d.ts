import type { RedisStoreClient } from '../stores/redis';

/**
 * One record of a shared learning store's log. `payload` is opaque (the index's encoding of the
 * request's hashed terms); stores keep every field as given. Tombstones (`type: 'forget'` with
 * the resource, `type: 'clear'`) make every process drop what was deleted.
 */
export interface LearnRecord {
  /** @default 'example' */
  type?: 'example' | 'forget' | 'clear';
  partition: string;
  resource: string;
  tool: string;
  /** ms since the epoch. */
  time: number;
  payload: string;
  /** The process that wrote it (its own records are not applied twice). */
  origin?: string;
  /** Which model made the payload's vector ('hybrid'); another process uses the vector only with the same model. */
  vectorModel?: string;
}

/**
 * A shared learning store for `learn.store` (docs/learning.md, "Stores"): a durable log every
 * process replays into its own in-process index. Every method may receive `{ signal }`, aborted
 * when the processor stops waiting (each call is bounded by `timeoutMs`, default 500 ms).
 */
export interface LearnStore {
  /** Appends a record to the log. */
  append(record: LearnRecord, options?: { signal?: AbortSignal }): Promise<void>;
  /**
   * The records after `cursor` (from the start when undefined), oldest first, tombstones included,
   * a bounded batch; `cursor` to pass next time; `more: false` (optional) when the log is exhausted
   * (else an empty batch says so).
   */
  read(cursor: string | undefined, options?: { signal?: AbortSignal }): Promise<{ records: LearnRecord[]; cursor: string | undefined; more?: boolean }>;
  /** Deletes every record of `resource`, then appends `tombstone`; resolves how many examples were deleted. */
  forgetResource(resource: string, options?: { tombstone?: LearnRecord; signal?: AbortSignal }): Promise<number>;
  /** Deletes every record, then appends `tombstone`. */
  clear(options?: { tombstone?: LearnRecord; signal?: AbortSignal }): Promise<void>;
  /** Called when the processor is disposed. */
  close?(): void | Promise<void>;
  /** Bound of each call in ms. @default 500 */
  readonly timeoutMs?: number;
  /** `'redis'` for redisLearnStore (getLearningStats() reports `'custom'` for anything else). */
  readonly kind?: string;
}

export interface RedisLearnStoreOptions {
  /** A connected node-redis (v4/v5) or ioredis client (standalone). It stays yours: the store never closes it. */
  client: RedisStoreClient;
  /** The log is the stream `<keyPrefix>log`. @default 'mastra:learn:' */
  keyPrefix?: string;
  /** Most records the log keeps (exact); the oldest go first. @default 100000 */
  maxRecords?: number;
  /** Bound of each round trip in ms. @default 500 */
  timeoutMs?: number;
  /** Records per read. @default 500 */
  batchSize?: number;
}

export interface RedisLearnStore extends LearnStore {
  readonly kind: 'redis';
  /** Which client was recognised. */
  readonly client: 'redis' | 'ioredis';
  readonly keyPrefix: string;
  /** The stream holding the log. */
  readonly key: string;
  readonly maxRecords: number;
  readonly timeoutMs: number;
  readonly batchSize: number;
}

/** A learning store every process of a deployment shares (one Redis stream). */
export function redisLearnStore(options: RedisLearnStoreOptions): RedisLearnStore;
