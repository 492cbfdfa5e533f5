// The Redis store against a real redis-server on loopback: key layout, thread-key encoding,
// bad input, two processes sharing one server, and faults (server killed and restarted,
// server paused) with node-redis v5 and ioredis, each with our recommended client settings
// and with the client's defaults.
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createClient, createCluster } from 'redis';
import IORedis from 'ioredis';
import { redisStore, encodeThreadKey } from '../../js/stores/redis.js';
import { assertStateStore, bindStateStore, guardStateStore } from '../../js/stores/index.js';
import { LineChild } from '../support/line-child';
import { connectIoRedis, connectNodeRedis } from '../support/redis-client';
import { startRedisServer, type RedisServer } from '../support/redis-server';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Every unhandled rejection in this worker is a failure of the store layer.
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
process.on('unhandledRejection', onUnhandled);

let server: RedisServer;
let admin: ReturnType<typeof createClient>;
let nodeClient: ReturnType<typeof createClient>;
let ioClient: IORedis;

beforeAll(async () => {
  server = await startRedisServer();
  admin = await connectNodeRedis(server.url);
  nodeClient = await connectNodeRedis(server.url);
  ioClient = await connectIoRedis(server.port);
});

afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  await admin?.close().catch(() => {});
  await nodeClient?.close().catch(() => {});
  ioClient?.disconnect();
  await server?.close();
});

describe('redisStore: key layout', () => {
  it('bound stores use mastra:<kind>:<thread> sorted sets holding names only, with the idle TTL', async () => {
    const user = redisStore(nodeClient);
    const tools = user.bind({ kind: 'tool-search' });
    const skills = user.bind({ kind: 'skill-search', ttlMs: 120_000 });
    expect(user.keyPrefix).toBe('mastra:loaded:');
    expect(tools.keyPrefix).toBe('mastra:tool-search:');
    expect(skills.keyPrefix).toBe('mastra:skill-search:');
    await tools.add('thread-1', ['weather', 'calendar']);
    await skills.add('thread-1', ['pdf']);
    expect(await admin.type('mastra:tool-search:thread-1')).toBe('zset');
    expect(await admin.zRange('mastra:tool-search:thread-1', 0, -1)).toEqual(['weather', 'calendar']);
    expect(await admin.zRange('mastra:skill-search:thread-1', 0, -1)).toEqual(['pdf']);
    // Default TTL one hour; the processor's ttl when the store has none.
    const toolTtl = await admin.pTTL('mastra:tool-search:thread-1');
    expect(toolTtl).toBeGreaterThan(3_600_000 - 60_000);
    expect(toolTtl).toBeLessThanOrEqual(3_600_000);
    const skillTtl = await admin.pTTL('mastra:skill-search:thread-1');
    expect(skillTtl).toBeGreaterThan(60_000);
    expect(skillTtl).toBeLessThanOrEqual(120_000);
    // A read restarts the TTL.
    await admin.pExpire('mastra:tool-search:thread-1', 5_000);
    expect(await tools.load('thread-1')).toEqual(['weather', 'calendar']);
    expect(await admin.pTTL('mastra:tool-search:thread-1')).toBeGreaterThan(3_600_000 - 60_000);
    await tools.clearAll();
    await skills.clearAll();
  });

  it('the store\u2019s own ttlMs wins over the processor\u2019s; ttlMs 0 never expires', async () => {
    const store = redisStore(nodeClient, { keyPrefix: 'layout-ttl:', ttlMs: 0 }).bind({ kind: 'tool-search', ttlMs: 1000 });
    expect(store.ttlMs).toBe(0);
    await store.add('t', ['a']);
    expect(await admin.pTTL('layout-ttl:t')).toBe(-1);
    // A key that had an expiry (e.g. written by a store with a TTL) loses it on add with ttl 0.
    await admin.pExpire('layout-ttl:t', 60_000);
    await store.add('t', ['b']);
    expect(await admin.pTTL('layout-ttl:t')).toBe(-1);
    await store.clearAll();
  });

  it('a read of an unknown thread creates no key; clear and clearAll remove keys', async () => {
    const store = redisStore(nodeClient, { keyPrefix: 'layout-keys:' });
    expect(await store.load('nobody')).toEqual([]);
    expect(await admin.exists('layout-keys:nobody')).toBe(0);
    await store.add('a', ['x']);
    await store.add('b', ['y']);
    await store.clear('a');
    expect(await admin.exists('layout-keys:a')).toBe(0);
    expect(await admin.exists('layout-keys:b')).toBe(1);
    await store.clearAll();
    expect(await admin.exists('layout-keys:b')).toBe(0);
  });

  it('clearAll scans in batches: 2,500 threads are all removed, nothing else', async () => {
    // One burst of 2,500 calls: the per-call bound must cover the queue, not one round trip.
    const store = redisStore(ioClient, { keyPrefix: 'layout-many:', timeoutMs: 30_000 });
    await Promise.all(Array.from({ length: 2500 }, (_, i) => store.add(`t${i}`, [`n${i}`])));
    await admin.set('layout-many-unrelated', 'keep');
    expect((await store.stats()).threadCount).toBe(2500);
    await store.clearAll();
    expect((await store.stats()).threadCount).toBe(0);
    expect(await admin.get('layout-many-unrelated')).toBe('keep');
  });

  it('stats: thread count and the oldest access time derived from the idle TTL', async () => {
    const store = redisStore(nodeClient, { keyPrefix: 'layout-stats:', ttlMs: 600_000 });
    const oldStart = Date.now();
    await store.add('old', ['a']);
    const oldEnd = Date.now();
    await sleep(300);
    const newStart = Date.now();
    await store.add('new', ['b']);
    const statsStart = Date.now();
    const stats = await store.stats();
    const statsMs = Date.now() - statsStart;
    expect(stats.threadCount).toBe(2);
    expect(stats.oldestAccessTime).not.toBeNull();
    // The 'old' thread's touch happened inside [oldStart, oldEnd]; the estimate can lag by the
    // stats call's own latency (and 1 ms of PTTL rounding), never more.
    expect(stats.oldestAccessTime!).toBeGreaterThanOrEqual(oldStart - 2);
    expect(stats.oldestAccessTime!).toBeLessThanOrEqual(oldEnd + statsMs + 2);
    if (statsMs < 200) expect(stats.oldestAccessTime!).toBeLessThan(newStart);
    await store.clearAll();
    expect(await store.stats()).toEqual({ threadCount: 0, oldestAccessTime: null });
  });
});

describe('redisStore: options', () => {
  it('an unknown option key is warned about once, naming the key it was probably meant to be', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      redisStore(nodeClient, { prefix: 'x:' } as any);
      redisStore(nodeClient, { prefix: 'x:' } as any);
      redisStore(nodeClient, { keyPrefix: 'x:', timeout: 5 } as any);
      expect(warn.mock.calls.map((c) => String(c[0]))).toEqual([
        'redisStore: unknown option `prefix` is ignored. Known options: `keyPrefix`, `timeoutMs`, `ttlMs`.',
        'redisStore: unknown option `timeout` is ignored. Did you mean `timeoutMs`?',
      ]);
    } finally {
      warn.mockRestore();
    }
  });
});

describe('redisStore: thread keys cannot address other keys', () => {
  const tricky = ['a', 'a:b', 'x:*', '*', '?', '[ab]', '\\*', '%2A', 'b%', '{slot}', '', ' ', 'ü', '\ud800', '\ufffd', '\u0000string:a'];

  it('encodes every thread key into letters, digits and _ . ~ % - only, injectively', () => {
    const encoded = tricky.map((t) => encodeThreadKey(t));
    for (const e of encoded) expect(e).toMatch(/^[A-Za-z0-9_.~%-]*$/);
    expect(new Set(encoded).size).toBe(tricky.length);
    expect(encodeThreadKey('plain-id_1.2~')).toBe('plain-id_1.2~');
  });

  it('thread ids that look like prefixes or globs stay in their own key; clearAll of a prefix spares longer prefixes and foreign keys', async () => {
    const outer = redisStore(nodeClient, { keyPrefix: 'enc:' });
    const inner = redisStore(nodeClient, { keyPrefix: 'enc:inner:' });
    await Promise.all(tricky.map((t, i) => outer.add(t, [`outer-${i}`])));
    await inner.add('', ['inner-empty']);
    await inner.add('t', ['inner-t']);
    // The outer store's thread 'inner:t' must not be the inner store's thread 't'.
    await outer.add('inner:t', ['outer-inner-t']);
    expect(await inner.load('t')).toEqual(['inner-t']);
    expect(await outer.load('inner:t')).toEqual(['outer-inner-t']);
    await admin.set('enc:foreign:key', 'keep');
    await admin.set('enc:x*', 'keep');
    await outer.clearAll();
    expect(await Promise.all(tricky.map((t) => outer.load(t)))).toEqual(tricky.map(() => []));
    expect(await outer.load('inner:t')).toEqual([]);
    expect(await inner.load('t')).toEqual(['inner-t']);
    expect(await inner.load('')).toEqual(['inner-empty']);
    expect(await admin.get('enc:foreign:key')).toBe('keep');
    expect(await admin.get('enc:x*')).toBe('keep');
    // A prefix with glob characters is matched literally.
    const globby = redisStore(nodeClient, { keyPrefix: 'enc:[in]*:' });
    await globby.add('t', ['g']);
    await globby.clearAll();
    expect(await inner.load('t')).toEqual(['inner-t']);
    await inner.clearAll();
    await admin.del(['enc:foreign:key', 'enc:x*']);
  });
});

describe('redisStore: bad input', () => {
  it('names the option and the expected value', () => {
    const bad: [unknown, unknown, RegExp][] = [
      [undefined, {}, /redisStore: client must be a connected node-redis v5 client .* or an ioredis client; received undefined/],
      [{}, {}, /redisStore: client must be/],
      ['redis://localhost', {}, /redisStore: client must be .*received the string "redis:\/\/localhost"/],
      [nodeClient, null, /redisStore: options must be an object/],
      [new IORedis.Cluster([], { lazyConnect: true }), {}, /cluster clients are not supported/],
      [createCluster({ rootNodes: [] }), {}, /cluster clients are not supported/],
      [nodeClient, { keyPrefix: '' }, /options\.keyPrefix must be a non-empty string ending with a separator/],
      [nodeClient, { keyPrefix: 'app' }, /options\.keyPrefix must be .*received the string "app"/],
      [nodeClient, { keyPrefix: 'app-' }, /options\.keyPrefix/],
      [nodeClient, { keyPrefix: 5 }, /options\.keyPrefix .*received the number 5/],
      [nodeClient, { timeoutMs: 0 }, /options\.timeoutMs must be a positive finite number of milliseconds; received the number 0/],
      [nodeClient, { timeoutMs: Number.NaN }, /options\.timeoutMs/],
      [nodeClient, { timeoutMs: '100' }, /options\.timeoutMs .*received the string "100"/],
      [nodeClient, { ttlMs: -1 }, /options\.ttlMs must be a non-negative finite number/],
      [nodeClient, { ttlMs: Number.POSITIVE_INFINITY }, /options\.ttlMs/],
    ];
    for (const [client, options, message] of bad) {
      expect(() => redisStore(client as never, options as never)).toThrow(TypeError);
      expect(() => redisStore(client as never, options as never)).toThrow(message);
    }
  });

  it('an explicit keyPrefix cannot serve both processor kinds; bind() checks its kind', () => {
    const shared = redisStore(nodeClient, { keyPrefix: 'app:' });
    shared.bind({ kind: 'tool-search' });
    shared.bind({ kind: 'tool-search' });
    expect(() => shared.bind({ kind: 'skill-search' })).toThrow(/explicit keyPrefix "app:" and is already used by a tool-search processor/);
    expect(() => redisStore(nodeClient).bind({ kind: 'tools' as never })).toThrow(/bind\(\) kind must be 'tool-search' or 'skill-search'/);
    // Without a keyPrefix one store serves both kinds, on separate keys.
    const auto = redisStore(nodeClient);
    expect(auto.bind({ kind: 'tool-search' }).keyPrefix).not.toBe(auto.bind({ kind: 'skill-search' }).keyPrefix);
  });

  it('bad thread keys and names reject with a TypeError (no command sent)', async () => {
    const store = redisStore(nodeClient, { keyPrefix: 'bad:' });
    await expect(store.load(42 as never)).rejects.toThrow(/threadKey must be a string; received the number 42/);
    await expect(store.add('t', 'a' as never)).rejects.toThrow(/names must be an array of strings/);
    await expect(store.add('t', ['a', 1] as never)).rejects.toThrow(/names must be an array of strings/);
    expect(await store.load('t')).toEqual([]);
  });

  it('assertStateStore / bindStateStore name the option and the shape', () => {
    expect(() => assertStateStore('redis', 'options.storage')).toThrow(
      /options\.storage must be 'in-memory', 'context' or a state store object \{ load\(threadKey\), add\(threadKey, names\), clear\(threadKey\), clearAll\(\) \}.*received the string "redis"/,
    );
    expect(() => assertStateStore({ load() {}, add() {}, clear() {} }, 'options.storage')).toThrow(/without a clearAll\(\) method/);
    expect(() => assertStateStore({ load() {}, add() {}, clear() {}, clearAll() {}, timeoutMs: -5 }, 'x')).toThrow(/timeoutMs is the number -5/);
    expect(() => assertStateStore({ load() {}, add() {}, clear() {}, clearAll() {}, bind: 1 }, 'x')).toThrow(/bind is the number 1/);
    const custom = { load: async () => [], add: async () => {}, clear: async () => {}, clearAll: async () => {} };
    expect(bindStateStore(custom, { kind: 'skill-search' })).toBe(custom);
    expect(() => bindStateStore(custom, { kind: 'x' as never })).toThrow(/kind must be 'tool-search' or 'skill-search'/);
    const bound: any = bindStateStore(redisStore(nodeClient), { kind: 'skill-search', ttlMs: 5000 });
    expect(bound.keyPrefix).toBe('mastra:skill-search:');
    expect(bound.ttlMs).toBe(5000);
  });
});

describe('redisStore: no Redis package needed to load', () => {
  it('js/stores loads and builds a custom-client store with require(\'redis\'/\'ioredis\') failing', () => {
    const script = `
      const Module = require('node:module');
      const load = Module._load;
      Module._load = function (request, ...rest) {
        if (request === 'redis' || request === 'ioredis' || request.startsWith('@redis/')) throw new Error('not installed: ' + request);
        return load.call(this, request, ...rest);
      };
      const { redisStore } = require(${JSON.stringify(path.join(__dirname, '..', '..', 'js', 'stores', 'redis.js'))});
      const { memoryStore } = require(${JSON.stringify(path.join(__dirname, '..', '..', 'js', 'stores', 'memory.js'))});
      require(${JSON.stringify(path.join(__dirname, '..', '..', 'js', 'stores', 'index.js'))});
      const fake = { isOpen: true, sendCommand: async () => [] };
      const s = redisStore(fake).bind({ kind: 'skill-search' });
      memoryStore();
      s.load('t').then((names) => process.stdout.write(JSON.stringify({ prefix: s.keyPrefix, names })));
    `;
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ prefix: 'mastra:skill-search:', names: [] });
  });
});

// --- two processes -------------------------------------------------------------------------

/** fixtures/store-child.mjs: one store in another process. */
class Child extends LineChild<{ pid: number; client: string; keyPrefix: string }> {
  call(op: string, thread?: string, names?: string[]): Promise<unknown> {
    return this.request({ op, thread, names });
  }
}

function startChild(client: 'redis' | 'ioredis', kind: string): Child {
  const fixture = path.join(__dirname, '..', 'fixtures', 'store-child.mjs');
  const proc = spawn(process.execPath, [fixture, client, String(server.port), kind], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  return new Child(proc);
}

describe('redisStore: two processes sharing one Redis', () => {
  it('a name added through process A is read by process B (node-redis in A, ioredis in B), and back', async () => {
    const a = startChild('redis', 'tool-search');
    const b = startChild('ioredis', 'tool-search');
    try {
      const [ra, rb] = await Promise.all([a.ready, b.ready]);
      expect(ra.pid).not.toBe(rb.pid);
      expect(ra.pid).not.toBe(process.pid);
      expect([ra.client, rb.client]).toEqual(['redis', 'ioredis']);
      await a.call('clearAll');
      expect(await b.call('load', 'conv-1')).toEqual([]);
      await a.call('add', 'conv-1', ['weather']);
      expect(await b.call('load', 'conv-1')).toEqual(['weather']);
      await b.call('add', 'conv-1', ['calendar', 'weather']);
      expect(await a.call('load', 'conv-1')).toEqual(['weather', 'calendar']);
      // Other threads are untouched; a clear through B is seen by A.
      expect(await a.call('load', 'conv-2')).toEqual([]);
      await b.call('clear', 'conv-1');
      expect(await a.call('load', 'conv-1')).toEqual([]);
      // Interleaved adds from both processes to the same threads end up exact.
      const writes: Promise<unknown>[] = [];
      for (let i = 0; i < 200; i++) writes.push((i % 2 ? a : b).call('add', `mix-${i % 10}`, [`n${i}`]));
      await Promise.all(writes);
      for (let t = 0; t < 10; t++) {
        const got = (await a.call('load', `mix-${t}`)) as string[];
        const want = Array.from({ length: 20 }, (_, k) => `n${t + 10 * k}`);
        expect([...got].sort()).toEqual([...want].sort());
        expect(await b.call('load', `mix-${t}`)).toEqual(got);
      }
      // And this (third) process sees the same state through its own store.
      expect(await redisStore(nodeClient).bind({ kind: 'tool-search' }).load('mix-3')).toEqual(await b.call('load', 'mix-3'));
      await a.call('clearAll');
      expect(await b.call('load', 'mix-3')).toEqual([]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

// --- faults ----------------------------------------------------------------------------------

// Big enough that a healthy call on a loaded 2-core machine (first call after a restart: two
// round trips, EVALSHA then EVAL) never hits it; small enough to tell a bound from a hang.
const TIMEOUT = 600;
// Generous slack for a loaded 2-core machine; a hang would be seconds, not this.
const SLACK = 1000;

interface ClientSetup {
  name: string;
  /** Whether a write that failed during the outage is guaranteed not to land later. */
  dropsFailedWrites: boolean;
  connect(port: number): Promise<{ client: unknown; close(): Promise<void> }>;
}

const setups: ClientSetup[] = [
  {
    name: 'node-redis, recommended (disableOfflineQueue, bounded reconnect backoff)',
    dropsFailedWrites: true,
    async connect(port) {
      const client = createClient({
        url: `redis://127.0.0.1:${port}`,
        disableOfflineQueue: true,
        socket: { connectTimeout: 1000, reconnectStrategy: (retries: number) => Math.min(50 + retries * 50, 500) },
      });
      client.on('error', () => {});
      await client.connect();
      return { client, close: async () => void client.destroy() };
    },
  },
  {
    name: 'node-redis, client defaults (offline queue on)',
    // The abort signal drops the timed-out command from the offline queue.
    dropsFailedWrites: true,
    async connect(port) {
      const client = createClient({ url: `redis://127.0.0.1:${port}` });
      client.on('error', () => {});
      await client.connect();
      return { client, close: async () => void client.destroy() };
    },
  },
  {
    name: 'ioredis, recommended (enableOfflineQueue false, maxRetriesPerRequest 1)',
    dropsFailedWrites: true,
    async connect(port) {
      const client = new IORedis(port, '127.0.0.1', {
        lazyConnect: true,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        retryStrategy: (times: number) => Math.min(50 + times * 50, 500),
      });
      client.on('error', () => {});
      await client.connect();
      return { client, close: async () => client.disconnect() };
    },
  },
  {
    name: 'ioredis, client defaults (offline queue on)',
    // ioredis has no per-command abort: a queued write may still land after reconnecting.
    dropsFailedWrites: false,
    async connect(port) {
      const client = new IORedis(port, '127.0.0.1', { lazyConnect: true });
      client.on('error', () => {});
      await client.connect();
      return { client, close: async () => client.disconnect() };
    },
  },
];

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - start };
}

describe('redisStore: server killed and restarted mid-conversation', () => {
  it.concurrent.each(setups)('$name', async (setup) => {
    const own = await startRedisServer();
    const { client, close } = await setup.connect(own.port);
    const logger = { warn: vi.fn() };
    const store = redisStore(client as never, { timeoutMs: TIMEOUT }).bind({ kind: 'tool-search' });
    const guard = guardStateStore(store, { getLogger: () => logger, label: 'ToolSearchProcessor' });
    try {
      // Step 1-2: normal.
      const first = await guard.add('conv', ['weather']);
      expect(first, String(!first.ok && (first as any).error)).toEqual({ ok: true });
      expect(await guard.load('conv')).toEqual({ ok: true, names: ['weather'] });

      // The server dies mid-conversation.
      await own.stop();
      for (let step = 0; step < 3; step++) {
        const read = await timed(() => guard.load('conv'));
        expect(read.value.ok).toBe(false);
        expect(read.value.names).toEqual([]);
        expect(read.ms).toBeLessThan(TIMEOUT + SLACK);
      }
      const write = await timed(() => guard.add('conv', ['lost-write']));
      expect(write.value.ok).toBe(false);
      expect(write.ms).toBeLessThan(TIMEOUT + SLACK);
      // Exactly one warning for the whole outage, through the registered logger.
      expect(logger.warn).toHaveBeenCalledTimes(1);
      expect(logger.warn.mock.calls[0][0]).toMatch(/^ToolSearchProcessor: state store load failed \(.+\); treating the thread as having nothing loaded until the store answers again\.$/);

      // The server comes back (empty: no persistence). The same store works again without
      // being recreated, once the client has reconnected.
      await own.restart();
      const deadline = Date.now() + 15_000;
      let recovered: Awaited<ReturnType<typeof guard.load>> | undefined;
      while (Date.now() < deadline) {
        const read = await timed(() => guard.load('conv'));
        expect(read.ms).toBeLessThan(TIMEOUT + SLACK);
        if (read.value.ok) {
          recovered = read.value;
          break;
        }
        await sleep(50);
      }
      expect(recovered?.ok).toBe(true);
      if (setup.dropsFailedWrites) expect(recovered!.names).toEqual([]);
      const again = await guard.add('conv', ['calendar']);
      expect(again, String(!again.ok && (again as any).error)).toEqual({ ok: true });
      const after = await guard.load('conv');
      expect(after.ok).toBe(true);
      expect(after.names).toContain('calendar');
      if (setup.dropsFailedWrites) expect(after.names).toEqual(['calendar']);
      expect(logger.warn).toHaveBeenCalledTimes(1);

      // A second outage warns again (a success came in between), once.
      await own.stop();
      expect((await guard.load('conv')).ok).toBe(false);
      expect((await guard.add('conv', ['x'])).ok).toBe(false);
      expect(logger.warn).toHaveBeenCalledTimes(2);
      expect(logger.warn.mock.calls[1][0]).toMatch(/state store (load|add) failed/);
    } finally {
      await close().catch(() => {});
      await own.close();
    }
    expect(unhandled).toEqual([]);
  });
});

describe('redisStore: slow server', () => {
  it.each([
    ['node-redis', () => nodeClient],
    ['ioredis', () => ioClient],
  ] as const)('%s: a paused server times the call out; the late reply is swallowed; the next call works', async (_, getClient) => {
    const store = redisStore(getClient() as never, { keyPrefix: `slow-${_}:`, timeoutMs: TIMEOUT });
    await store.add('t', ['a']);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const guard = guardStateStore(store, { label: 'SkillSearchProcessor' });
      await admin.sendCommand(['CLIENT', 'PAUSE', '2500', 'ALL']);
      const read = await timed(() => guard.load('t'));
      expect(read.value).toMatchObject({ ok: false, names: [], timedOut: true });
      expect(read.ms).toBeGreaterThanOrEqual(TIMEOUT - 20);
      expect(read.ms).toBeLessThan(TIMEOUT + SLACK);
      const write = await timed(() => guard.add('t', ['b']));
      expect(write.value).toMatchObject({ ok: false, timedOut: true });
      expect(write.ms).toBeLessThan(TIMEOUT + SLACK);
      // No Mastra logger registered: one console.warn for the outage.
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0][0])).toMatch(
        new RegExp(`^SkillSearchProcessor: state store load failed \\(state store load timed out after ${TIMEOUT} ms\\)`),
      );
      // Wait out the pause: the late replies arrive and are dropped; the next call works.
      await sleep(2800);
      const next = await guard.load('t');
      expect(next.ok).toBe(true);
      // The write had reached the server before the pause ended: a timed-out write can still
      // land (documented); the read is always the server's truth.
      expect(next.names[0]).toBe('a');
      expect(warn).toHaveBeenCalledTimes(1);
      await store.clearAll();
    } finally {
      warn.mockRestore();
    }
    expect(unhandled).toEqual([]);
  });
});
