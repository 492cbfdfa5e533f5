// learn.store = redisLearnStore (issue 42): every process of a deployment learns from all of
// them. Two REAL Node processes (fixtures/learn-child.cjs: a real Agent with a scripted model,
// ToolSearchProcessor + learn + redisLearnStore) on one real Redis-compatible server, with
// node-redis and with ioredis: what one process learns preloads in the other; deletion and
// clearing reach the other process; the server killed mid-run (generations succeed, nothing is
// learned, one warning per outage, learning resumes by itself); the log's bound holds in Redis;
// nothing keeps Node alive.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { redisLearnStore } from '../../index.js';
import { LineChild } from '../support/line-child';
import { connectIoRedis, connectNodeRedis, useRedis } from '../support/redis-client';
import { startRedisServer } from '../support/redis-server';
import { runNode } from '../support/run-node';
import { solve, answer, eventually, DINNER, DINNER_AGAIN, RATES, RATES_AGAIN } from '../support/learn';
import type { ScriptStep } from '../support/scripted-model';

const FIXTURE = path.join(__dirname, '..', 'fixtures', 'learn-child.cjs');

type Turn = { offered: string[][]; results: string[]; text: string };
type Step = ScriptStep;

class LearnChild extends LineChild {
  static start(client: string, port: number, keyPrefix: string, scope = 'resource') {
    const proc = spawn(process.execPath, [FIXTURE, client, String(port), keyPrefix, scope], { stdio: ['pipe', 'pipe', 'inherit'] });
    return new LearnChild(proc);
  }
  turn(text: string, resource: string, script: Step[]): Promise<Turn> {
    return this.request({ op: 'turn', text, resource, script });
  }
  stats(): Promise<any> {
    return this.request({ op: 'stats' });
  }
  forget(resource: string): Promise<number> {
    return this.request({ op: 'forget', resource });
  }
  clear(): Promise<null> {
    return this.request({ op: 'clear' });
  }
  warnings(): Promise<string[]> {
    return this.request({ op: 'warnings' });
  }
}

const MAIL = 'mail the quarterly report to Ann in finance';
const MAIL_AGAIN = 'mail the weekly report to Ann in finance';

/** The log's records as the server holds them. */
async function logRecords(admin: any, key: string): Promise<any[]> {
  const entries = (await admin.sendCommand(['XRANGE', key, '-', '+'])) as [string, string[]][];
  return entries.map(([, fields]) => JSON.parse(fields[1]));
}


// (a real server for this file and an admin client on it, to read the log as Redis holds it)
const redis = useRedis();

for (const client of ['redis', 'ioredis']) {
  describe(`redisLearnStore shared by two processes (${client})`, () => {
    const prefix = `learn-${client}:`;
    let a: LearnChild;
    let b: LearnChild;

    beforeAll(async () => {
      a = LearnChild.start(client, redis.server.port, prefix);
      b = LearnChild.start(client, redis.server.port, prefix);
      await Promise.all([a.ready, b.ready]);
    });
    afterAll(async () => {
      await Promise.all([a?.close(), b?.close()]);
    });

    it("what process A learns preloads for process B's similar request", async () => {
      const before = await b.turn(DINNER_AGAIN, 'alice', answer);
      expect(before.offered[0]).not.toContain('book_table');
      const taught = await a.turn(DINNER, 'alice', solve('book_table'));
      expect(taught.results).toContain('book_table');
      expect(await a.stats()).toMatchObject({ examples: 1, store: 'redis', lastOutage: null });
      await eventually(async () => (await logRecords(redis.client, `${prefix}log`)).length === 1);
      const after = await b.turn(DINNER_AGAIN, 'alice', answer);
      expect(after.offered[0]).toContain('book_table');
      expect(await b.stats()).toMatchObject({ examples: 1, resources: 1, store: 'redis' });
      // (A's own record came back from the log and was not applied twice)
      await a.turn('hello there', 'alice', answer);
      expect(await a.stats()).toMatchObject({ examples: 1 });
      // What is stored: hashed terms, not the request text.
      const [record] = await logRecords(redis.client, `${prefix}log`);
      expect(record).toMatchObject({ type: 'example', resource: 'alice', tool: 'book_table', partition: 'r:alice' });
      expect(JSON.stringify(record)).not.toMatch(/dinner|Luigi/i);
      // Scope 'resource': another resource is not served by it.
      expect((await b.turn(DINNER_AGAIN, 'bob', answer)).offered[0]).not.toContain('book_table');
    });

    it('forgetLearnedResource in A deletes the records from Redis and reaches B', async () => {
      await a.turn(RATES, 'carol', solve('convert_currency'));
      await eventually(async () => (await logRecords(redis.client, `${prefix}log`)).some((r) => r.resource === 'carol'));
      expect((await b.turn(RATES_AGAIN, 'carol', answer)).offered[0]).toContain('convert_currency');
      expect((await b.turn(DINNER_AGAIN, 'alice', answer)).offered[0]).toContain('book_table');

      expect(await a.forget('alice')).toBe(1);
      const left = await logRecords(redis.client, `${prefix}log`);
      expect(left.filter((r) => r.resource === 'alice').map((r) => r.type)).toEqual(['forget']);
      expect(left.filter((r) => r.type === 'example').map((r) => r.resource)).toEqual(['carol']);
      // B drops alice at its next step; carol's evidence stays.
      expect((await b.turn(DINNER_AGAIN, 'alice', answer)).offered[0]).not.toContain('book_table');
      expect((await b.turn(RATES_AGAIN, 'carol', answer)).offered[0]).toContain('convert_currency');
      expect(await b.stats()).toMatchObject({ examples: 1, resources: 1 });
      // alice can teach again afterwards (in either process)
      await a.turn(DINNER, 'alice', solve('book_table'));
      expect(await a.stats()).toMatchObject({ examples: 2 });
    });

    it('forgetAllLearned in B clears Redis and every process', async () => {
      await b.turn(MAIL, 'dave', solve('send_email'));
      await eventually(async () => (await a.turn('hello', 'dave', answer), (await a.stats()).examples === 3));
      await b.clear();
      const left = await logRecords(redis.client, `${prefix}log`);
      expect(left.map((r) => r.type)).toEqual(['clear']);
      expect((await a.turn(MAIL_AGAIN, 'dave', answer)).offered[0]).not.toContain('send_email');
      expect((await a.turn(DINNER_AGAIN, 'alice', answer)).offered[0]).not.toContain('book_table');
      expect(await a.stats()).toMatchObject({ examples: 0, resources: 0 });
      expect(await b.stats()).toMatchObject({ examples: 0, resources: 0 });
      // learning goes on after a clear, and still reaches the other process
      await b.turn(MAIL, 'dave', solve('send_email'));
      await eventually(async () => (await a.turn(MAIL_AGAIN, 'dave', answer)).offered[0].includes('send_email'));
      expect(await a.warnings()).toEqual([]);
      expect(await b.warnings()).toEqual([]);
    });
  });
}

describe("redisLearnStore: scope 'global' across processes", () => {
  it('agreement of distinct resources is counted over every process', async () => {
    const prefix = 'learn-global:';
    const a = LearnChild.start('redis', redis.server.port, prefix, 'global');
    const b = LearnChild.start('ioredis', redis.server.port, prefix, 'global');
    try {
      await Promise.all([a.ready, b.ready]);
      await a.turn(DINNER, 'alice', solve('book_table'));
      await a.turn('hello', 'alice', answer);
      // one resource is not enough to teach others...
      expect((await b.turn(DINNER_AGAIN, 'bob', answer)).offered[0]).not.toContain('book_table');
      // ...a second resource, taught in the OTHER process, is
      await b.turn('sort out dinner for three on sunday at Luigi', 'carol', solve('book_table'));
      await eventually(async () => (await a.turn(DINNER_AGAIN, 'bob', answer)).offered[0].includes('book_table'));
      expect(await a.stats()).toMatchObject({ scope: 'global', examples: 2, resources: 2 });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

for (const client of ['redis', 'ioredis']) {
  describe(`redisLearnStore: the server killed mid-run (${client})`, () => {
    it('generations succeed, nothing is learned, one warning; learning resumes by itself when the server is back', async () => {
      const own = await startRedisServer();
      const prefix = 'learn-outage:';
      const a = LearnChild.start(client, own.port, prefix);
      const b = LearnChild.start(client, own.port, prefix);
      try {
        await Promise.all([a.ready, b.ready]);
        await a.turn(DINNER, 'alice', solve('book_table'));
        await b.turn('hello', 'alice', answer);
        expect(await b.stats()).toMatchObject({ examples: 1, lastOutage: null });

        await own.stop();
        for (let i = 0; i < 3; i++) {
          const during = await a.turn(RATES, 'alice', solve('convert_currency'));
          expect(during.results).toEqual(['load_tool', 'convert_currency']);
          expect(during.text).toBe('done');
          // what the index held still serves, with no store
          expect((await a.turn(DINNER_AGAIN, 'alice', answer)).offered[0]).toContain('book_table');
        }
        expect(await a.stats()).toMatchObject({ examples: 1 });
        const warned = await a.warnings();
        expect(warned).toHaveLength(1);
        expect(warned[0]).toMatch(/^ToolSearchProcessor: learning store (read|append) failed \(.+\); learning is paused/);
        expect((await a.stats()).lastOutage).toMatch(/^\d{4}-\d\d-\d\dT/);

        await own.restart();
        // (no restart of either process: the background retry finds the server again)
        await eventually(async () => {
          await a.turn(RATES, 'alice', solve('convert_currency'));
          return (await a.stats()).examples === 2;
        });
        await eventually(async () => (await b.turn(RATES_AGAIN, 'alice', answer)).offered[0].includes('convert_currency'));
        expect(await a.warnings()).toHaveLength(1);
        expect((await b.warnings()).length).toBeLessThanOrEqual(1);
      } finally {
        await Promise.all([a.close(), b.close()]);
        await own.close();
      }
    });
  });
}

describe('redisLearnStore: bounds and the log', () => {
  for (const client of ['redis', 'ioredis']) {
    it(`maxRecords holds in Redis; reads are oldest first, in batches (${client})`, async () => {
      const c: any = client === 'redis' ? await connectNodeRedis(redis.server.url) : await connectIoRedis(redis.server.port);
      try {
        const store = redisLearnStore({ client: c, keyPrefix: `bound-${client}:`, maxRecords: 50, batchSize: 20 });
        expect(store).toMatchObject({ kind: 'redis', client, key: `bound-${client}:log`, maxRecords: 50 });
        for (let i = 0; i < 120; i++) {
          await store.append({ partition: 'r:u', resource: `u${i % 7}`, tool: `tool${i}`, time: i, payload: 'AQAAAAEAAAABAA==' });
        }
        expect(Number(await redis.client.sendCommand(['XLEN', store.key]))).toBe(50);
        const tools: string[] = [];
        let cursor: string | undefined;
        let pages = 0;
        for (;;) {
          const page = await store.read(cursor);
          pages++;
          tools.push(...page.records.map((r: any) => r.tool));
          cursor = page.cursor;
          if (!page.more) break;
        }
        expect(tools).toEqual(Array.from({ length: 50 }, (_, i) => `tool${70 + i}`));
        expect(pages).toBe(3);
        // nothing after the end
        expect(await store.read(cursor)).toEqual({ records: [], cursor, more: false });
        // forgetResource: that resource's records go, a tombstone is appended (the bound still holds)
        const u3 = tools.filter((t) => Number(t.slice(4)) % 7 === 3).length;
        const tombstone = { type: 'forget' as const, partition: '', resource: 'u3', tool: '', time: 1, payload: '' };
        expect(await store.forgetResource('u3', { tombstone })).toBe(u3);
        const after = await store.read(cursor);
        expect(after.records).toEqual([tombstone]);
        expect(Number(await redis.client.sendCommand(['XLEN', store.key]))).toBe(50 - u3 + 1);
        await store.clear();
        expect((await store.read(undefined)).records.map((r: any) => r.type)).toEqual(['clear']);
        // (the stream's ids never go back after a clear: an old cursor still reads what follows)
        await store.append({ partition: 'r:u', resource: 'u', tool: 'later', time: 2, payload: 'AQAAAAEAAAABAA==' });
        expect((await store.read(after.cursor)).records.map((r: any) => r.tool)).toEqual(['', 'later']);
      } finally {
        if (client === 'redis') await c.close();
        else c.disconnect();
      }
    });
  }

  it('entries this version cannot read are skipped, never applied (a store is not a trust boundary)', async () => {
    const c = await connectNodeRedis(redis.server.url);
    try {
      const store = redisLearnStore({ client: c as any, keyPrefix: 'forged:' });
      await redis.client.sendCommand(['XADD', 'forged:log', '*', 'r', 'not json']);
      await redis.client.sendCommand(['XADD', 'forged:log', '*', 'other', 'field']);
      await redis.client.sendCommand(['XADD', 'forged:log', '*', 'r', JSON.stringify({ type: 'example', partition: 'r:u', resource: 'u', tool: 'book_table', time: 1, payload: 'garbage' })]);
      const page = await store.read(undefined);
      expect(page.records).toHaveLength(1);
      expect(page.cursor).toMatch(/^\d+-\d+$/);
      // a processor replaying them learns nothing and does not fail
      const { ToolLearning } = require('../../js/learn/index.js');
      const { learnOptionsOf } = require('../../js/learn/options.js');
      const learning = new ToolLearning(learnOptionsOf({ store }, 'T'));
      await learning.observe({ requestContext: { get: () => undefined }, messages: [] }, {}, false, async () => true);
      expect(learning.stats()).toMatchObject({ examples: 0, store: 'redis', lastOutage: null });
      learning.dispose();
    } finally {
      await c.close();
    }
  });
});

describe('redisLearnStore: nothing keeps Node alive', () => {
  for (const client of ['redis', 'ioredis']) {
    it(`a process exits by itself after its work, the store still configured and failing (${client})`, async () => {
      const started = Date.now();
      const run = await runNode([FIXTURE, client, String(redis.server.port), `alive-${client}:`, 'resource', 'oneshot'], 20_000);
      expect(run.signal).toBeNull();
      expect(run.status).toBe(0);
      const out = JSON.parse(run.stdout.trim().split('\n').pop()!);
      expect(out).toMatchObject({ done: true, stats: { examples: 1, store: 'redis' } });
      // the last step ran on a closed client: one warning, and the retry timer did not hold the process
      expect(out.warnings).toHaveLength(1);
      expect(out.stats.lastOutage).not.toBeNull();
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(await logRecords(redis.client, `alive-${client}:log`)).toHaveLength(1);
    });
  }
});
