// The loaded-state store contract (js/stores/index.js), run unchanged against every
// implementation: the JS memory store, and the Redis store on node-redis v5 and on ioredis,
// both against a real redis-server on loopback.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createClient } from 'redis';
import IORedis from 'ioredis';
import { memoryStore } from '../../js/stores/memory.js';
import { redisStore } from '../../js/stores/redis.js';
import { assertStateStore, createOutageWarner, guardStateStore, withTimeout, StoreTimeoutError } from '../../js/stores/index.js';
import { connectIoRedis, connectNodeRedis } from '../support/redis-client';
import { startRedisServer, type RedisServer } from '../support/redis-server';

type Store = {
  load(threadKey: string, opts?: { signal?: AbortSignal }): Promise<string[]>;
  add(threadKey: string, names: string[], opts?: { signal?: AbortSignal }): Promise<void>;
  clear(threadKey: string, opts?: { signal?: AbortSignal }): Promise<void>;
  clearAll(opts?: { signal?: AbortSignal }): Promise<void>;
  stats(opts?: { signal?: AbortSignal }): Promise<{ threadCount: number; oldestAccessTime: number | null }>;
  bind(defaults: { kind: 'tool-search' | 'skill-search'; ttlMs?: number }): Store;
};

let server: RedisServer;
let nodeClient: ReturnType<typeof createClient>;
let ioClient: IORedis;
let prefixCounter = 0;
const nextPrefix = () => `contract${++prefixCounter}:`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Impl {
  name: string;
  /** A fresh store whose state no other test shares. */
  make(options?: { ttlMs?: number; timeoutMs?: number }): Store;
  /** Two stores bound from one user store, as two processors would. */
  makeForKinds(): { tools: Store; skills: Store };
}

const impls: Impl[] = [
  {
    name: 'memory',
    make: (o = {}) => memoryStore({ ttlMs: o.ttlMs }) as Store,
    makeForKinds() {
      const user = memoryStore() as Store;
      return { tools: user.bind({ kind: 'tool-search' }), skills: user.bind({ kind: 'skill-search' }) };
    },
  },
  {
    name: 'redis (node-redis v5)',
    make: (o = {}) => redisStore(nodeClient, { keyPrefix: nextPrefix(), ttlMs: o.ttlMs, timeoutMs: o.timeoutMs ?? 10_000 }) as Store,
    makeForKinds() {
      const user = redisStore(nodeClient) as Store;
      return { tools: user.bind({ kind: 'tool-search' }), skills: user.bind({ kind: 'skill-search' }) };
    },
  },
  {
    name: 'redis (ioredis)',
    make: (o = {}) => redisStore(ioClient, { keyPrefix: nextPrefix(), ttlMs: o.ttlMs, timeoutMs: o.timeoutMs ?? 10_000 }) as Store,
    makeForKinds() {
      const user = redisStore(ioClient) as Store;
      return { tools: user.bind({ kind: 'tool-search' }), skills: user.bind({ kind: 'skill-search' }) };
    },
  },
];

beforeAll(async () => {
  server = await startRedisServer();
  nodeClient = await connectNodeRedis(server.url);
  ioClient = await connectIoRedis(server.port);
});

afterAll(async () => {
  await nodeClient?.close().catch(() => {});
  ioClient?.disconnect();
  await server?.close();
});

// Thread keys that must never address each other's state: prefixes of one another,
// separators and glob characters, the processors' typed-key form, unicode, lone surrogates.
const TRICKY_THREADS = [
  'default',
  '',
  'a',
  'a:',
  'a:b',
  'A',
  '*',
  'a*',
  '?',
  '[a]',
  '\\',
  '%41',
  'A%',
  'contract1:x',
  'mastra:tool-search:t',
  '\u0000number:42',
  '42',
  'thread with spaces',
  'üñïçødé',
  '😀',
  '\ud83d',
  '\ufffd',
  '{tag}',
];

describe.each(impls)('store contract: $name', (impl) => {
  it('implements the contract shape', () => {
    const store = impl.make();
    expect(assertStateStore(store, 'options.storage')).toBe(store);
  });

  it('an unknown thread loads as nothing', async () => {
    const store = impl.make();
    expect(await store.load('never-seen')).toEqual([]);
    expect((await store.stats()).threadCount).toBe(0);
  });

  it('keeps names in first-insertion order; re-adding keeps the position; add([]) is a no-op', async () => {
    const store = impl.make();
    await store.add('t', ['c', 'a']);
    await store.add('t', ['b', 'a', 'd', 'b']);
    expect(await store.load('t')).toEqual(['c', 'a', 'b', 'd']);
    await store.add('t', []);
    await store.add('empty', []);
    expect(await store.load('t')).toEqual(['c', 'a', 'b', 'd']);
    expect(await store.load('empty')).toEqual([]);
    expect((await store.stats()).threadCount).toBe(1);
  });

  it('keeps names exactly (unicode, separators, glob characters, empty string)', async () => {
    const store = impl.make();
    const names = ['tool:with:colons', 'glob*?[x]', 'ünï', '😀', '', ' spaced ', 'a\\b', '42'];
    await store.add('t', names);
    expect(await store.load('t')).toEqual(names);
  });

  it('a thread never sees another thread\u2019s names', async () => {
    const store = impl.make();
    await Promise.all(TRICKY_THREADS.map((t, i) => store.add(t, [`name-${i}`])));
    const loaded = await Promise.all(TRICKY_THREADS.map((t) => store.load(t)));
    expect(loaded).toEqual(TRICKY_THREADS.map((_, i) => [`name-${i}`]));
    expect((await store.stats()).threadCount).toBe(TRICKY_THREADS.length);
  });

  it('clear(thread) forgets only that thread; clearAll() forgets only this store\u2019s threads', async () => {
    const store = impl.make();
    const other = impl.make();
    await store.add('a', ['x']);
    await store.add('a*', ['y']);
    await store.add('b', ['z']);
    await other.add('a', ['other']);
    await store.clear('a');
    expect(await store.load('a')).toEqual([]);
    expect(await store.load('a*')).toEqual(['y']);
    expect(await store.load('b')).toEqual(['z']);
    await store.clear('never-seen');
    await store.clearAll();
    expect(await Promise.all(['a', 'a*', 'b'].map((t) => store.load(t)))).toEqual([[], [], []]);
    expect((await store.stats()).threadCount).toBe(0);
    expect(await other.load('a')).toEqual(['other']);
  });

  it('stores bound for the two processor kinds do not share state', async () => {
    const { tools, skills } = impl.makeForKinds();
    await tools.clearAll();
    await skills.clearAll();
    await tools.add('t', ['weather']);
    await skills.add('t', ['pdf']);
    expect(await tools.load('t')).toEqual(['weather']);
    expect(await skills.load('t')).toEqual(['pdf']);
    await tools.clearAll();
    expect(await tools.load('t')).toEqual([]);
    expect(await skills.load('t')).toEqual(['pdf']);
    await skills.clearAll();
  });

  it('honours an aborted signal (rejects, changes nothing)', async () => {
    const store = impl.make();
    await expect(store.add('t', ['x'], { signal: AbortSignal.abort() })).rejects.toBeDefined();
    await expect(store.load('t', { signal: AbortSignal.abort() })).rejects.toBeDefined();
    expect(await store.load('t')).toEqual([]);
  });

  it('through guardStateStore: typed results, names as stored', async () => {
    const store = impl.make();
    const guard = guardStateStore(store);
    expect(await guard.add('t', ['x', 'y'])).toEqual({ ok: true });
    expect(await guard.load('t')).toEqual({ ok: true, names: ['x', 'y'] });
    expect((await guard.clear('t')).ok).toBe(true);
    expect(await guard.load('t')).toEqual({ ok: true, names: [] });
  });

  it('10,000 concurrent operations over 1,000 threads keep every thread exactly right', async () => {
    // 10,000 calls issued in one burst queue behind each other on one connection: the
    // per-call bound must cover the burst, not one round trip.
    const store = impl.make({ timeoutMs: 30_000 });
    const THREADS = 1000;
    const OPS = 10_000;
    // Each op i targets thread i % 1000: two of every three ops add (a unique name plus one
    // of a few shared names, so concurrent adds overlap), the rest read.
    const expected = new Map<string, Set<string>>();
    const ops: Promise<unknown>[] = [];
    const reads: { thread: string; names: Promise<string[]> }[] = [];
    for (let i = 0; i < OPS; i++) {
      const thread = `thread-${(i * 7919) % THREADS}`;
      if (i % 3 === 2) {
        const names = store.load(thread);
        reads.push({ thread, names });
        ops.push(names);
      } else {
        const names = [`tool-${i}`, `shared-${i % 5}`];
        if (!expected.has(thread)) expected.set(thread, new Set());
        for (const n of names) expected.get(thread)!.add(n);
        ops.push(store.add(thread, names));
      }
    }
    await Promise.all(ops);
    const finals = new Map<string, string[]>();
    await Promise.all(
      [...expected.keys()].map(async (thread) => finals.set(thread, await store.load(thread))),
    );
    let mismatches = 0;
    for (const [thread, want] of expected) {
      const got = finals.get(thread)!;
      // Exactly the added names, each once.
      if (got.length !== want.size || !got.every((n) => want.has(n))) mismatches++;
    }
    expect(mismatches).toBe(0);
    // Names only ever append: every read saw a prefix of the final order.
    const readResults = await Promise.all(reads.map((r) => r.names));
    let notPrefix = 0;
    reads.forEach((r, k) => {
      const got = readResults[k];
      const final = finals.get(r.thread) ?? [];
      if (got.some((n, j) => final[j] !== n)) notPrefix++;
    });
    expect(notPrefix).toBe(0);
    expect((await store.stats()).threadCount).toBe(expected.size);
    await store.clearAll();
  });
});

// Timing-based, so the three implementations run side by side (one wall-clock wait).
describe('store contract: idle TTL (all implementations at once)', () => {
  it('every load/add restarts the TTL; an idle thread expires', async () => {
    await Promise.all(
      impls.map(async (impl) => {
        const ttl = 1500;
        const store = impl.make({ ttlMs: ttl });
        await store.add('kept', ['a']);
        await store.add('idle', ['b']);
        // Touch 'kept' every 400 ms for 2 s (well past the TTL since it was added); each gap
        // is far below the TTL (1.1 s of slack for a loaded machine).
        for (let i = 0; i < 5; i++) {
          await sleep(400);
          expect(await store.load('kept'), impl.name).toEqual(['a']);
        }
        // 'idle' was last touched >= 2 s ago: gone.
        expect(await store.load('idle'), impl.name).toEqual([]);
        await store.add('kept', ['c']);
        expect(await store.load('kept'), impl.name).toEqual(['a', 'c']);
        await sleep(ttl + 1000);
        expect(await store.load('kept'), impl.name).toEqual([]);
        expect((await store.stats()).threadCount, impl.name).toBe(0);
      }),
    );
  });
});

// The helpers a processor calls a custom store through: whatever the store does, a call
// settles within its bound, never rejects, and warns once per outage.
describe('guardStateStore over misbehaving custom stores', () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  beforeAll(() => process.on('unhandledRejection', onUnhandled));
  afterAll(() => process.off('unhandledRejection', onUnhandled));

  const base = () => ({
    load: async (_t: string) => [] as unknown,
    add: async (_t: string, _n: string[]) => {},
    clear: async () => {},
    clearAll: async () => {},
  });

  it('a store that never settles is bounded by its timeoutMs; its signal is aborted', async () => {
    let seen: AbortSignal | undefined;
    const store = {
      ...base(),
      timeoutMs: 100,
      load: (_t: string, opts: { signal: AbortSignal }) => {
        seen = opts.signal;
        return new Promise<string[]>(() => {});
      },
    };
    const logger = { warn: vi.fn() };
    const guard = guardStateStore(store, { getLogger: () => logger, label: 'ToolSearchProcessor' });
    const start = performance.now();
    const result = await guard.load('t');
    const ms = performance.now() - start;
    expect(result).toMatchObject({ ok: false, names: [], timedOut: true });
    expect(result.ok === false && result.error).toBeInstanceOf(StoreTimeoutError);
    expect(ms).toBeGreaterThanOrEqual(90);
    expect(ms).toBeLessThan(600);
    expect(seen?.aborted).toBe(true);
    expect(logger.warn).toHaveBeenCalledTimes(1);
  });

  it('without timeoutMs on the store, the guard option (else 500 ms) bounds it', async () => {
    const store = { ...base(), load: () => new Promise<string[]>(() => {}) };
    const guard = guardStateStore(store, { timeoutMs: 80, getLogger: () => ({ warn() {} }) });
    expect(guard.timeoutMs).toBe(80);
    expect((await guard.load('t')).ok).toBe(false);
    expect(guardStateStore(store).timeoutMs).toBe(500);
  });

  it('late rejections, synchronous throws and junk replies become typed failures', async () => {
    const store = {
      ...base(),
      timeoutMs: 50,
      // Rejects well after the bound: must be swallowed.
      load: () => new Promise<string[]>((_, reject) => setTimeout(() => reject(new Error('late')), 150)),
      add: () => {
        throw new Error('sync throw');
      },
      clear: () => Promise.reject(new Error('clear failed')),
    };
    const logger = { warn: vi.fn() };
    const guard = guardStateStore(store, { getLogger: () => logger, label: 'X' });
    expect(await guard.load('t')).toMatchObject({ ok: false, names: [], timedOut: true });
    expect(await guard.add('t', ['a'])).toMatchObject({ ok: false, timedOut: false });
    expect((await guard.add('t', ['a'])).ok === false).toBe(true);
    expect(await guard.clear('t')).toMatchObject({ ok: false });
    // add([]) never reaches the store.
    expect(await guard.add('t', [])).toEqual({ ok: true });
    await new Promise((r) => setTimeout(r, 250));
    // The steps' outage (load, then add) warned once; the admin call, on its own budget, once.
    expect(logger.warn).toHaveBeenCalledTimes(2);
    expect(logger.warn.mock.calls[0][0]).toMatch(/^X: state store load failed \(state store load timed out after 50 ms\); treating the thread as having nothing loaded/);
    expect(logger.warn.mock.calls[0][1]).toMatchObject({ error: expect.any(StoreTimeoutError) });
    expect(logger.warn.mock.calls[1][0]).toBe('X: state store clear failed (clear failed); clearState() resolved { ok: false, error }; the thread may still hold its names.');

    const junk = guardStateStore({ ...base(), load: async () => 'weather' as any }, { getLogger: () => logger });
    expect(await junk.load('t')).toMatchObject({ ok: false, names: [] });
    const mixed = guardStateStore({ ...base(), load: async () => ['a', 1, null, 'b', 'a', Buffer.from('c')] as any });
    expect(await mixed.load('t')).toEqual({ ok: true, names: ['a', 'b', 'c'] });
    expect(unhandled).toEqual([]);
  });

  it('warns once per outage: again only after a success in between; falls back to console.warn', async () => {
    let up = false;
    const store = {
      ...base(),
      load: async () => {
        if (!up) throw new Error('down');
        return ['a'];
      },
    };
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const guard = guardStateStore(store, { label: 'SkillSearchProcessor' });
      for (let i = 0; i < 5; i++) expect((await guard.load('t')).ok).toBe(false);
      expect(warn).toHaveBeenCalledTimes(1);
      up = true;
      expect(await guard.load('t')).toEqual({ ok: true, names: ['a'] });
      up = false;
      await guard.load('t');
      await guard.load('t');
      expect(warn).toHaveBeenCalledTimes(2);
      expect(String(warn.mock.calls[1][0])).toMatch(/^SkillSearchProcessor: state store load failed \(down\)/);
    } finally {
      warn.mockRestore();
    }
  });

  it('createOutageWarner reads the logger at warn time (a logger registered later is used)', () => {
    let logger: { warn: (...a: unknown[]) => void } | undefined;
    const warner = createOutageWarner(() => logger, 'P');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      expect(warner.fail('load', new Error('e1'))).toBe(true);
      expect(warn).toHaveBeenCalledTimes(1);
      warner.ok();
      logger = { warn: vi.fn() };
      expect(warner.fail('add', new Error('e2'))).toBe(true);
      expect(warner.fail('add', new Error('e3'))).toBe(false);
      expect(logger.warn).toHaveBeenCalledTimes(1);
      expect(warn).toHaveBeenCalledTimes(1);
    } finally {
      warn.mockRestore();
    }
  });

  it('withTimeout: value, failure, timeout, and an outer abort', async () => {
    expect(await withTimeout(async () => 7, 100)).toEqual({ ok: true, value: 7 });
    const failed = await withTimeout(async () => {
      throw new Error('boom');
    }, 100);
    expect(failed).toMatchObject({ ok: false, timedOut: false });
    const slow = await withTimeout(() => new Promise(() => {}), 30, { operation: 'load' });
    expect(slow).toMatchObject({ ok: false, timedOut: true });
    const outer = new AbortController();
    const pending = withTimeout(() => new Promise(() => {}), 10_000, { signal: outer.signal });
    outer.abort(new Error('step aborted'));
    expect(await pending).toMatchObject({ ok: false, timedOut: false });
  });
});
