// Wrong-shaped Redis replies and admin-call failures (issue 24, part 4), through a RESP proxy in
// front of a real redis-server that answers chosen commands itself (support/resp-proxy.ts):
// - a load script answered with +OK (or a number, or a list holding a number) is a store
//   failure: the step shows nothing loaded and warns once, with the reply named;
// - an add script answered with +OK makes load_tool tell the model the load did not take;
// - a malformed SCAN reply fails clearAllState()/getStoreStats() with their own wording and
//   their own one-warning budget, which neither spends nor ends the steps' budget;
// - once the replies are right again, everything works with no restart.
// Both clients: node-redis v5 and ioredis.
import Redis from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';

import { ToolSearchProcessor, SkillSearchProcessor, redisStore } from '../../index.js';
import { step, tempSkillsWorkspace, type TempWorkspace } from '../support/skill-search';
import { startRedisServer, type RedisServer } from '../support/redis-server';
import { startRespProxy, type Command, type RespProxy } from '../support/resp-proxy';

let server: RedisServer;
let proxy: RespProxy;
let skillsFx: TempWorkspace;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  server = await startRedisServer();
  proxy = await startRespProxy(Number(new URL(server.url).port));
  skillsFx = tempSkillsWorkspace();
});

afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  await proxy?.close();
  await server?.close();
  skillsFx?.cleanup();
});

const TOOL_IDS = ['get_weather', 'send_email'];
const makeTools = () =>
  Object.fromEntries(TOOL_IDS.map((id) => [id, createTool({ id, description: `${id.replace(/_/g, ' ')} tool`, inputSchema: z.object({}), execute: async () => id } as any)]));

function recordingLogger() {
  const warns: string[] = [];
  const logger = { warn: (message: unknown) => warns.push(String(message)), info() {}, debug() {}, error() {}, trackException() {} };
  return { warns, mastra: { getLogger: () => logger } };
}

// Our scripts go out as EVALSHA <sha> 1 <key> <ttl> [names...]: load has no names, add has some.
const isLoad = (c: Command) => c[0].toUpperCase() === 'EVALSHA' && c.length === 5;
const isAdd = (c: Command) => c[0].toUpperCase() === 'EVALSHA' && c.length > 5;
const isScan = (c: Command) => c[0].toUpperCase() === 'SCAN';
const loadedKeys = (tools: Record<string, unknown>) => Object.keys(tools).filter((k) => k !== 'search_tools' && k !== 'load_tool');

const CLIENTS = {
  'node-redis': async () => {
    const c = createClient({ url: proxy.url, disableOfflineQueue: true });
    c.on('error', () => {});
    await c.connect();
    return { client: c, close: () => c.close() };
  },
  ioredis: async () => {
    const c = new Redis(proxy.url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
    c.on('error', () => {});
    await c.connect();
    return { client: c, close: async () => void c.disconnect() };
  },
};

describe.each(Object.keys(CLIENTS) as (keyof typeof CLIENTS)[])('wrong-shaped replies (%s)', (clientName) => {
  it('a malformed load or add reply is a store failure: nothing loaded, one warning naming the reply, an honest load_tool answer', async () => {
    const { client, close } = await CLIENTS[clientName]();
    const thread = `replies-${clientName}`;
    const processor = new ToolSearchProcessor({ tools: makeTools(), storage: redisStore(client, { keyPrefix: `replies:${thread}:` }) });
    const log = recordingLogger();
    processor.__registerMastra(log.mastra as any);
    try {
      const first = await step(processor, { threadId: thread });
      expect(await first.tools.load_tool.execute({ toolName: 'get_weather' }, {})).toMatchObject({ success: true });
      expect(loadedKeys((await step(processor, { threadId: thread })).tools)).toEqual(['get_weather']);

      for (const [reply, described] of [
        ['+OK\r\n', 'the string "OK"'],
        [':3\r\n', 'the number 3'],
        ['*2\r\n$11\r\nget_weather\r\n:7\r\n', 'an array'],
      ] as const) {
        proxy.inject((c) => (isLoad(c) ? reply : isAdd(c) ? '+OK\r\n' : undefined));
        const s = await step(processor, { threadId: thread });
        expect(loadedKeys(s.tools)).toEqual([]);
        expect(Object.keys(s.tools)).toEqual(['search_tools', 'load_tool']);
        expect(await s.tools.load_tool.execute({ toolName: 'send_email' }, {})).toEqual({
          success: false,
          message: 'Tool "send_email" could not be loaded right now (loaded-tool state is unavailable). Try again.',
          toolName: 'send_email',
        });
        expect(log.warns.at(-1)).toBe(
          `ToolSearchProcessor: state store load failed (redisStore: load answered ${described}, not a list of names); treating the thread as having nothing loaded until the store answers again.`,
        );
        // Replies right again: the stored state is intact and loads take.
        proxy.inject(undefined);
        const back = await step(processor, { threadId: thread });
        expect(loadedKeys(back.tools)).toEqual(['get_weather']);
      }
      // One warning per outage: three outages, three warnings.
      expect(log.warns.length).toBe(3);

      // An add answered +OK alone (the load is fine): load_tool says it did not take.
      proxy.inject((c) => (isAdd(c) ? '+OK\r\n' : undefined));
      const s = await step(processor, { threadId: thread });
      expect(await s.tools.load_tool.execute({ toolName: 'send_email' }, {})).toMatchObject({ success: false });
      expect(log.warns.at(-1)).toBe(
        'ToolSearchProcessor: state store add failed (redisStore: add answered the string "OK", not the count of names added); the names were not saved, and the model was told the load did not take.',
      );
      proxy.inject(undefined);
      expect(await (await step(processor, { threadId: thread })).tools.load_tool.execute({ toolName: 'send_email' }, {})).toMatchObject({ success: true });
      expect(loadedKeys((await step(processor, { threadId: thread })).tools)).toEqual(['get_weather', 'send_email']);
      await processor.clearAllState();
      expect(unhandled).toEqual([]);
    } finally {
      proxy.inject(undefined);
      await close();
    }
  });

  it('SkillSearchProcessor: a malformed load reply shows no skill and warns; load_skill says it did not take', async () => {
    const { client, close } = await CLIENTS[clientName]();
    const thread = `skill-replies-${clientName}`;
    const processor = new SkillSearchProcessor({ workspace: skillsFx.make(), storage: redisStore(client, { keyPrefix: `replies:${thread}:` }) });
    const log = recordingLogger();
    processor.__registerMastra(log.mastra as any);
    try {
      expect(await (await step(processor, { threadId: thread })).tools.load_skill.execute({ skillName: 'deployment' }, {})).toMatchObject({ success: true });
      const skillMessages = (system: string[]) => system.filter((m) => m.startsWith('[Skill: '));
      expect(skillMessages((await step(processor, { threadId: thread })).system).length).toBe(1);
      proxy.inject((c) => (isLoad(c) || isAdd(c) ? '+OK\r\n' : undefined));
      const s = await step(processor, { threadId: thread });
      expect(skillMessages(s.system)).toEqual([]);
      expect(await s.tools.load_skill.execute({ skillName: 'testing-strategy' }, {})).toEqual({
        success: false,
        message: 'Skill "testing-strategy" could not be loaded right now (loaded-skill state is unavailable). Try again.',
      });
      expect(log.warns).toEqual([
        'SkillSearchProcessor: state store load failed (redisStore: load answered the string "OK", not a list of names); treating the thread as having nothing loaded until the store answers again.',
      ]);
      proxy.inject(undefined);
      expect(skillMessages((await step(processor, { threadId: thread })).system).length).toBe(1);
      await processor.clearAllState();
    } finally {
      proxy.inject(undefined);
      await close();
    }
  });

  it('admin calls fail with their own wording and their own warning budget', async () => {
    const { client, close } = await CLIENTS[clientName]();
    const thread = `admin-${clientName}`;
    const processor = new ToolSearchProcessor({ tools: makeTools(), storage: redisStore(client, { keyPrefix: `replies:${thread}:` }) });
    const log = recordingLogger();
    processor.__registerMastra(log.mastra as any);
    try {
      await (await step(processor, { threadId: thread })).tools.load_tool.execute({ toolName: 'get_weather' }, {});
      proxy.inject((c) => (isScan(c) ? '+OK\r\n' : undefined));
      const cleared: any = await processor.clearAllState();
      expect(cleared.ok).toBe(false);
      expect(String((cleared as any).error.message)).toBe('redisStore: scan answered the string "OK", not a [cursor, keys] pair');
      expect(await processor.getStoreStats()).toBeNull();
      // One admin outage, one warning (stats failed in the same outage).
      expect(log.warns).toEqual([
        'ToolSearchProcessor: state store clearAll failed (redisStore: scan answered the string "OK", not a [cursor, keys] pair); clearAllState() resolved { ok: false, error }; some threads may still hold their names.',
      ]);
      // The steps' budget is untouched: a step failure now warns, in the steps' wording.
      proxy.inject((c) => (isLoad(c) ? '+OK\r\n' : isScan(c) ? '*1\r\n$1\r\n0\r\n' : undefined));
      expect(loadedKeys((await step(processor, { threadId: thread })).tools)).toEqual([]);
      expect(log.warns.length).toBe(2);
      expect(log.warns[1]).toMatch(/^ToolSearchProcessor: state store load failed \(redisStore: load answered the string "OK", not a list of names\); treating the thread/);
      // Still the same admin outage (no admin call succeeded): no new admin warning.
      expect(await processor.getStoreStats()).toBeNull();
      expect(log.warns.length).toBe(2);
      // Good replies: the step works and ends its outage; the admin call works and ends its own.
      proxy.inject(undefined);
      expect(loadedKeys((await step(processor, { threadId: thread })).tools)).toEqual(['get_weather']);
      expect(await processor.getStoreStats()).toMatchObject({ threadCount: 1 });
      // A new admin outage warns again, with the stats wording.
      proxy.inject((c) => (isScan(c) ? ':1\r\n' : undefined));
      expect(await processor.getStoreStats()).toBeNull();
      expect(log.warns.length).toBe(3);
      expect(log.warns[2]).toBe('ToolSearchProcessor: state store stats failed (redisStore: scan answered the number 1, not a [cursor, keys] pair); getStoreStats() resolved null.');
      proxy.inject(undefined);
      expect(await processor.clearAllState()).toEqual({ ok: true });
      expect(await processor.getStoreStats()).toMatchObject({ threadCount: 0 });
      expect(unhandled).toEqual([]);
    } finally {
      proxy.inject(undefined);
      await close();
    }
  });
});
