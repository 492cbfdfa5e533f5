// Thread isolation as a property (issue 24): for arbitrary JS values as thread ids — strings with
// lone surrogates, U+0000 and U+FFFD, numbers (NaN, -0), bigints, booleans, objects, symbols, and
// look-alikes made from each (its String(), the old "\0<type>:<value>" key, our own key
// encodings written as strings, Unicode normal forms, case, the Redis key form) — what a thread
// sees loaded equals a model of the host: one JS Map keyed by `id || 'default'`. Checked for
// ToolSearchProcessor and SkillSearchProcessor with the in-memory default, memoryStore() and
// redisStore() on a real Redis-compatible server. With a shared store an object, function or
// symbol id is a TypeError naming mastra__threadId and changes nothing.
import fc from 'fast-check';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestContext } from '@mastra/core/request-context';
import { memoryStore, redisStore, SkillSearchProcessor, ToolSearchProcessor } from '../../index.js';
import { encodeThreadKey } from '../../js/stores/redis.js';
import { sharedThreadKey, threadKey } from '../../js/thread-id.js';
import { call, step as skillStep, tempSkillsWorkspace, type TempWorkspace } from '../support/skill-search';
import { connectNodeRedis } from '../support/redis-client';
import { startRedisServer, type RedisServer } from '../support/redis-server';
import { step as toolStep, tool } from '../support/tool-search';

const NAMES = ['alpha', 'beta', 'gamma'];

// Code units chosen to collide: lone surrogates and their U+FFFD stand-in, U+0000 and the tag
// letters of our encodings, '%' and hex digits of the Redis form, composed/decomposed é, case.
const UNITS = ['a', 'A', 'n', 's', 'o', '0', 'D', '8', '%', '\u0000', '\uFFFD', '\uD800', '\uDBFF', '\uDC00', '\uDFFF', '\uD83D\uDE00', 'e\u0301', '\u00E9', ':'];
const text = fc.array(fc.constantFrom(...UNITS), { maxLength: 4 }).map((units) => units.join(''));
const object = fc.constantFrom('alice', 'mallory').map((user) => ({ user }));
const base = fc.oneof(
  { weight: 4, arbitrary: text },
  { weight: 2, arbitrary: fc.integer({ min: -2, max: 42 }) },
  { weight: 1, arbitrary: fc.constantFrom(NaN, -0, 0.5, 1e21, Infinity) },
  { weight: 1, arbitrary: fc.bigInt({ min: -2n, max: 42n }) },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 2, arbitrary: object },
  { weight: 1, arbitrary: fc.constantFrom('a', 'b').map((d) => Symbol(d)) },
  { weight: 1, arbitrary: fc.constantFrom(Symbol.for('mnp-thread')) },
);

/** Strings an attacker could craft to meet `value`'s key (or the key of a cousin). */
function lookAlikes(value: unknown): unknown[] {
  if (typeof value === 'symbol') return [value.description ?? '', threadKey(value)];
  const s = String(value);
  const out: unknown[] = [s, `\u0000${typeof value}:${s}`, threadKey(value)];
  if (typeof value !== 'object') out.push(sharedThreadKey(value), encodeThreadKey(sharedThreadKey(value)));
  if (typeof value === 'string') {
    out.push((value as any).toWellFormed(), value.normalize('NFC'), value.normalize('NFD'), value.toUpperCase(), value.toLowerCase());
  }
  return out;
}

const scenario = fc.record({
  ids: fc.array(base, { minLength: 1, maxLength: 4 }).map((values) => values.flatMap((v) => [v, ...lookAlikes(v)])),
  loads: fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 1, maxLength: 8 }),
});

function contextOf(threadId: unknown): RequestContext {
  const rc = new RequestContext<any>();
  rc.set('mastra__threadId', threadId as any);
  return rc;
}

const representableAcrossProcesses = (id: unknown) =>
  !(id !== null && (typeof id === 'object' || typeof id === 'function' || typeof id === 'symbol'));

/** The host's state: a Map keyed by the thread id itself, falsy ids meaning 'default'. */
class HostModel {
  #threads = new Map<unknown, Set<string>>();
  load(id: unknown, name: string) {
    const key = id || 'default';
    if (!this.#threads.has(key)) this.#threads.set(key, new Set());
    this.#threads.get(key)!.add(name);
  }
  loaded(id: unknown): string[] {
    return [...(this.#threads.get(id || 'default') ?? [])].sort();
  }
}

interface Driver {
  /** Loads `name` on thread `id`. */
  load(id: unknown, name: string): Promise<void>;
  /** What thread `id` has loaded, sorted. */
  loaded(id: unknown): Promise<string[]>;
  dispose(): Promise<void>;
}

type StoreKind = 'in-memory' | 'memoryStore' | 'redisStore';

let server: RedisServer;
let client: ReturnType<typeof createClient>;
let run = 0;

function storageFor(kind: StoreKind): unknown {
  if (kind === 'in-memory') return undefined;
  if (kind === 'memoryStore') return memoryStore();
  run++;
  return redisStore(client, { keyPrefix: `isolation:${run}:` });
}

function toolDriver(kind: StoreKind): Driver {
  const tools = Object.fromEntries(NAMES.map((n) => [n, tool(n, `${n} things`)]));
  const storage = storageFor(kind);
  const p = new ToolSearchProcessor({ tools, ...(storage ? { storage } : {}) } as any);
  return {
    async load(id, name) {
      const s = await toolStep(p, { rc: contextOf(id) });
      const answer = await s.load({ toolName: name });
      expect(answer).toMatchObject({ success: true });
    },
    async loaded(id) {
      const tools = await p.getLoadedToolsForRequestContext({ requestContext: contextOf(id) });
      return Object.keys(tools).sort();
    },
    async dispose() {
      await (p as any).clearAllState();
      p.dispose();
    },
  };
}

let skillsWorkspace: TempWorkspace;

function skillDriver(kind: StoreKind): Driver {
  const storage = storageFor(kind);
  const p = new SkillSearchProcessor({ workspace: skillsWorkspace.make(), ...(storage ? { storage } : {}) } as any);
  return {
    async load(id, name) {
      const s = await skillStep(p, { requestContext: contextOf(id) });
      const answer = await call(s.tools.load_skill, { skillName: name });
      expect(answer).toMatchObject({ success: true });
    },
    async loaded(id) {
      const s = await skillStep(p, { requestContext: contextOf(id) });
      const text = s.system.join('\n');
      return NAMES.filter((n) => text.includes(`marker-${n}-body`)).sort();
    },
    async dispose() {
      await (p as any).clearAllState();
      p.dispose();
    },
  };
}

async function checkIsolation(makeDriver: () => Driver, kind: StoreKind, numRuns: number) {
  await fc.assert(
    fc.asyncProperty(scenario, async ({ ids, loads }) => {
      const driver = makeDriver();
      const model = new HostModel();
      try {
        for (const [i, k] of loads) {
          const id = ids[i % ids.length];
          const name = NAMES[k % NAMES.length];
          if (kind !== 'in-memory' && !representableAcrossProcesses(id)) {
            await expect(driver.load(id, name)).rejects.toThrow(/mastra__threadId.*must be a string or a number/);
            continue;
          }
          await driver.load(id, name);
          model.load(id, name);
        }
        for (const id of ids) {
          if (kind !== 'in-memory' && !representableAcrossProcesses(id)) continue;
          expect(await driver.loaded(id), `thread id ${describeId(id)}`).toEqual(model.loaded(id));
        }
      } finally {
        await driver.dispose();
      }
    }),
    { numRuns },
  );
}

function describeId(id: unknown): string {
  if (typeof id === 'string') return JSON.stringify(id);
  if (typeof id === 'symbol') return id.toString();
  if (typeof id === 'bigint') return `${id}n`;
  if (typeof id === 'object' && id !== null) return `object ${JSON.stringify(id)}`;
  return `${typeof id} ${String(id)}`;
}

beforeAll(async () => {
  server = await startRedisServer();
  client = await connectNodeRedis(server.url);
  skillsWorkspace = tempSkillsWorkspace(
    NAMES.map((n) => ({ name: n, description: `The ${n} skill`, body: `Instructions: marker-${n}-body.` })),
  );
});

afterAll(async () => {
  await client?.quit();
  await server?.close();
  skillsWorkspace?.cleanup();
});

describe.each([
  ['in-memory', 150, 40],
  ['memoryStore', 150, 40],
  ['redisStore', 60, 25],
] as const)('thread ids with storage %s keep apart what the host keeps apart', (kind, toolRuns, skillRuns) => {
  it('ToolSearchProcessor', async () => {
    await checkIsolation(() => toolDriver(kind), kind, toolRuns);
  });

  it('SkillSearchProcessor', async () => {
    await checkIsolation(() => skillDriver(kind), kind, skillRuns);
  });
});

describe('the reported pairs (issue 24), one by one', () => {
  const pairs: Array<[string, unknown, unknown]> = [
    ['a lone surrogate and U+FFFD', 'victim\uFFFD', 'victim\uD800'],
    ['two lone surrogates', 'a\uDC00b', 'a\uDBFFb'],
    ['two objects', { user: 'alice' }, { user: 'mallory' }],
    ['a number and the old key of that number', 42, '\u0000number:42'],
    ['a number and its new key as a string', 42, '\u0000n42'],
    ['a number and its string', 42, '42'],
  ];
  it.each(pairs)('%s are two threads (in-memory default)', async (_what, a, b) => {
    const driver = toolDriver('in-memory');
    await driver.load(a, 'alpha');
    expect(await driver.loaded(b)).toEqual([]);
    expect(await driver.loaded(a)).toEqual(['alpha']);
    await driver.dispose();
  });

  it('a number thread id in Redis is the key <prefix>%00n<number>, apart from every string', async () => {
    const driver = toolDriver('redisStore');
    await driver.load(42, 'alpha');
    const keys = await client.keys(`isolation:${run}:*`);
    expect(keys).toEqual([`isolation:${run}:%00n42`]);
    expect(await driver.loaded('42')).toEqual([]);
    expect(await driver.loaded('%00n42')).toEqual([]);
    expect(await driver.loaded('\u0000n42')).toEqual([]);
    expect(await driver.loaded(42)).toEqual(['alpha']);
    await driver.dispose();
  });

  it('an object thread id with a shared store is a TypeError naming mastra__threadId, for both processors', async () => {
    for (const driver of [toolDriver('memoryStore'), skillDriver('memoryStore')]) {
      await expect(driver.load({ user: 'alice' }, 'alpha')).rejects.toThrow(
        /mastra__threadId \(or MastraMemory thread id\) must be a string or a number with a shared state store; received an object/,
      );
      await driver.dispose();
    }
  });
});
