// ToolSearchProcessor and SkillSearchProcessor on `storage: redisStore(client)` against a real
// redis-server on loopback (issue 11, part 2): two Node processes sharing one server, TTL
// expiry, clearState/clearAllState, thread isolation, the server killed and restarted
// mid-conversation (degrade, one warning per outage, recover without a restart, no
// unhandled rejection), forged names written straight into Redis, bad `storage` values.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';

import { ToolSearchProcessor, SkillSearchProcessor, redisStore, memoryStore } from '../../index.js';
import { contextFor, step, tempSkillsWorkspace, type TempWorkspace } from '../support/skill-search';
import { LineChild } from '../support/line-child';
import { connectNodeRedis } from '../support/redis-client';
import { startRedisServer, type RedisServer } from '../support/redis-server';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// Every unhandled rejection in this worker is a failure of the store integration.
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
process.on('unhandledRejection', onUnhandled);

let server: RedisServer;
let admin: ReturnType<typeof createClient>;
let client: ReturnType<typeof createClient>;
let skillsFx: TempWorkspace;

/** The client settings the README recommends: fail fast while disconnected, reconnect quickly. */
function recommendedClient(url: string) {
  const c = createClient({
    url,
    disableOfflineQueue: true,
    socket: { reconnectStrategy: (retries: number) => Math.min(50 + retries * 50, 500) },
  });
  c.on('error', () => {});
  return c;
}

beforeAll(async () => {
  server = await startRedisServer();
  admin = await connectNodeRedis(server.url);
  client = recommendedClient(server.url);
  await client.connect();
  skillsFx = tempSkillsWorkspace();
});

afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  await admin?.close().catch(() => {});
  await client?.close().catch(() => {});
  await server?.close();
  skillsFx?.cleanup();
});

const TOOL_IDS = ['get_weather', 'send_email', 'calendar_schedule', 'stock_quote'];
function makeTools() {
  return Object.fromEntries(
    TOOL_IDS.map((id) => [
      id,
      createTool({ id, description: `${id.replace(/_/g, ' ')} tool`, inputSchema: z.object({}), execute: async () => ({ ran: id }) } as any),
    ]),
  );
}

/** A Mastra-logger stand-in that records warnings; registered the way Mastra does. */
function recordingLogger() {
  const warns: unknown[][] = [];
  const logger = { warn: (...args: unknown[]) => warns.push(args), info() {}, debug() {}, error() {}, trackException() {} };
  return { warns, mastra: { getLogger: () => logger } };
}

const loadedKeys = (tools: Record<string, unknown>) => Object.keys(tools).filter((k) => k !== 'search_tools' && k !== 'load_tool');
const skillMessages = (system: string[]) => system.filter((s) => s.startsWith('[Skill: '));

describe('ToolSearchProcessor with storage: redisStore(client)', () => {
  it('load_tool writes the name to mastra:tool-search:<thread>; the next step offers the tool (and the host step shape is unchanged)', async () => {
    const processor = new ToolSearchProcessor({ tools: makeTools(), storage: redisStore(client) });
    const reference = new ToolSearchProcessor({ tools: makeTools() });
    const first = await step(processor, { threadId: 'ts-basic' });
    const refFirst = await step(reference, { threadId: 'ts-basic' });
    expect(Object.keys(first.tools)).toEqual(Object.keys(refFirst.tools));
    expect(first.system).toEqual(refFirst.system);
    const result = await first.tools.load_tool.execute({ toolName: 'get_weather' }, {});
    const refResult = await refFirst.tools.load_tool.execute({ toolName: 'get_weather' }, {});
    expect(result).toEqual(refResult);
    expect(await admin.zRange('mastra:tool-search:ts-basic', 0, -1)).toEqual(['get_weather']);
    const multi = await first.tools.load_tool.execute({ toolNames: ['send_email', 'get_weather', 'nope'] }, {});
    expect(multi).toEqual(await refFirst.tools.load_tool.execute({ toolNames: ['send_email', 'get_weather', 'nope'] }, {}));
    const second = await step(processor, { threadId: 'ts-basic' });
    const refSecond = await step(reference, { threadId: 'ts-basic' });
    expect(Object.keys(second.tools)).toEqual(Object.keys(refSecond.tools));
    expect(loadedKeys(second.tools)).toEqual(['get_weather', 'send_email']);
    expect(await admin.zRange('mastra:tool-search:ts-basic', 0, -1)).toEqual(['get_weather', 'send_email']);
    // Agent resume paths (approval suspensions) read the same state.
    const resumed = await processor.getLoadedToolsForRequestContext({ requestContext: contextFor('ts-basic') });
    expect(Object.keys(resumed)).toEqual(Object.keys(await reference.getLoadedToolsForRequestContext({ requestContext: contextFor('ts-basic') })));
    expect(Object.keys(resumed)).toEqual(['get_weather', 'send_email']);
    await processor.clearAllState();
  });

  it('auto-loading search_tools writes through the store as well', async () => {
    const processor = new ToolSearchProcessor({ tools: makeTools(), storage: redisStore(client), search: { autoLoad: true, topK: 1 } });
    const reference = new ToolSearchProcessor({ tools: makeTools(), search: { autoLoad: true, topK: 1 } });
    const ours = await (await step(processor, { threadId: 'ts-auto' })).tools.search_tools.execute({ query: 'weather' }, {});
    const theirs = await (await step(reference, { threadId: 'ts-auto' })).tools.search_tools.execute({ query: 'weather' }, {});
    expect(ours).toEqual(theirs);
    expect(await admin.zRange('mastra:tool-search:ts-auto', 0, -1)).toEqual(['get_weather']);
    expect(loadedKeys((await step(processor, { threadId: 'ts-auto' })).tools)).toEqual(['get_weather']);
    await processor.clearAllState();
  });

  it('the processor ttl is the key TTL; an idle thread expires on the server', async () => {
    const processor = new ToolSearchProcessor({ tools: makeTools(), storage: redisStore(client), ttl: 400 });
    const first = await step(processor, { threadId: 'ts-ttl' });
    await first.tools.load_tool.execute({ toolName: 'stock_quote' }, {});
    const ttl = await admin.pTTL('mastra:tool-search:ts-ttl');
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(400);
    // Reading restarts the idle TTL.
    await sleep(250);
    expect(loadedKeys((await step(processor, { threadId: 'ts-ttl' })).tools)).toEqual(['stock_quote']);
    await sleep(250);
    expect(loadedKeys((await step(processor, { threadId: 'ts-ttl' })).tools)).toEqual(['stock_quote']);
    await sleep(600);
    expect(await admin.exists('mastra:tool-search:ts-ttl')).toBe(0);
    expect(loadedKeys((await step(processor, { threadId: 'ts-ttl' })).tools)).toEqual([]);
    // The store's own ttlMs wins over the processor's ttl.
    const own = new ToolSearchProcessor({ tools: makeTools(), storage: redisStore(client, { ttlMs: 0 }), ttl: 400 });
    await (await step(own, { threadId: 'ts-ttl-own' })).tools.load_tool.execute({ toolName: 'stock_quote' }, {});
    expect(await admin.pTTL('mastra:tool-search:ts-ttl-own')).toBe(-1);
    await own.clearAllState();
  });

  it('clearState forgets one thread, clearAllState every thread of the tool namespace only; the stats are the store\u2019s', async () => {
    const store = redisStore(client);
    const tools = new ToolSearchProcessor({ tools: makeTools(), storage: store });
    const skills = new SkillSearchProcessor({ workspace: skillsFx.make(), storage: store });
    for (const thread of ['c1', 'c2', 'c3']) {
      await (await step(tools, { threadId: thread })).tools.load_tool.execute({ toolName: 'send_email' }, {});
    }
    await (await step(skills, { threadId: 'c1' })).tools.load_skill.execute({ skillName: 'deployment' }, {});
    expect(await tools.getStoreStats()).toMatchObject({ threadCount: 3 });
    expect(tools.getStateStats()).toEqual({ threadCount: 0, oldestAccessTime: null });
    expect(tools.cleanupNow()).toBe(0);
    expect(await tools.clearState('c2')).toEqual({ ok: true });
    expect(await admin.exists('mastra:tool-search:c2')).toBe(0);
    expect(loadedKeys((await step(tools, { threadId: 'c2' })).tools)).toEqual([]);
    expect(loadedKeys((await step(tools, { threadId: 'c1' })).tools)).toEqual(['send_email']);
    expect(await tools.clearAllState()).toEqual({ ok: true });
    expect(await admin.keys('mastra:tool-search:*')).toEqual([]);
    expect(loadedKeys((await step(tools, { threadId: 'c1' })).tools)).toEqual([]);
    // The skill namespace is untouched.
    expect(await admin.zRange('mastra:skill-search:c1', 0, -1)).toEqual(['deployment']);
    expect(await skills.clearState('c1')).toEqual({ ok: true });
    expect(await admin.exists('mastra:skill-search:c1')).toBe(0);
    // dispose() leaves shared state alone (other processes use it).
    await (await step(tools, { threadId: 'c9' })).tools.load_tool.execute({ toolName: 'send_email' }, {});
    tools.dispose();
    skills.dispose();
    expect(await admin.zRange('mastra:tool-search:c9', 0, -1)).toEqual(['send_email']);
    await admin.del('mastra:tool-search:c9');
  });

  it('a thread never sees another thread\u2019s names (including the default thread and look-alike keys)', async () => {
    const processor = new ToolSearchProcessor({ tools: makeTools(), storage: redisStore(client) });
    const threads = ['iso-a', 'iso-b', 'iso-a:x', 'iso-a*', 'default'];
    for (let i = 0; i < threads.length; i++) {
      const s = threads[i] === 'default' ? await step(processor, { requestContext: contextFor() }) : await step(processor, { threadId: threads[i] });
      await s.tools.load_tool.execute({ toolName: TOOL_IDS[i % TOOL_IDS.length] }, {});
    }
    for (let i = 0; i < threads.length; i++) {
      const s = threads[i] === 'default' ? await step(processor, { requestContext: contextFor() }) : await step(processor, { threadId: threads[i] });
      expect(loadedKeys(s.tools)).toEqual([TOOL_IDS[i % TOOL_IDS.length]]);
    }
    await processor.clearAllState();
  });

  it('forged names written straight into Redis: unknown names are ignored, names the filter denies for loading are not offered', async () => {
    const phases: string[] = [];
    const processor = new ToolSearchProcessor({
      tools: makeTools(),
      storage: redisStore(client),
      filter: ({ toolName, phase }) => {
        phases.push(`${phase}:${toolName}`);
        return !(toolName === 'send_email' && phase === 'load');
      },
    });
    await admin.zAdd('mastra:tool-search:forged', [
      { score: 0, value: 'send_email' },
      { score: 1, value: 'no_such_tool' },
      { score: 2, value: 'get_weather' },
      { score: 3, value: 'search_tools' },
    ]);
    const s = await step(processor, { threadId: 'forged' });
    expect(Object.keys(s.tools)).toEqual(['search_tools', 'load_tool', 'get_weather']);
    expect(s.tools.search_tools.id).toBe('search_tools');
    expect(phases).toEqual(['load:send_email', 'load:get_weather', 'active:get_weather']);
    // A store value that is not a sorted set (someone else's key) reads as nothing loaded.
    await admin.set('mastra:tool-search:wrongtype', 'x');
    const logged = recordingLogger();
    processor.__registerMastra(logged.mastra as any);
    expect(loadedKeys((await step(processor, { threadId: 'wrongtype' })).tools)).toEqual([]);
    expect(logged.warns.length).toBe(1);
    await processor.clearAllState();
  });
});

describe('SkillSearchProcessor with storage: redisStore(client)', () => {
  it('load_skill stores the name; later steps show the skill like the in-memory processor does', async () => {
    const processor = new SkillSearchProcessor({ workspace: skillsFx.make(), storage: redisStore(client) });
    const reference = new SkillSearchProcessor({ workspace: skillsFx.make() });
    const ours = await step(processor, { threadId: 'sk-basic' });
    const theirs = await step(reference, { threadId: 'sk-basic' });
    expect(Object.keys(ours.tools)).toEqual(Object.keys(theirs.tools));
    for (const name of ['deployment', 'deployment', 'deploy-typo', 'testing-strategy']) {
      expect(await ours.tools.load_skill.execute({ skillName: name }, {})).toEqual(
        await theirs.tools.load_skill.execute({ skillName: name }, {}),
      );
    }
    expect(await admin.zRange('mastra:skill-search:sk-basic', 0, -1)).toEqual(['deployment', 'testing-strategy']);
    const next = await step(processor, { threadId: 'sk-basic' });
    const refNext = await step(reference, { threadId: 'sk-basic' });
    expect(next.system).toEqual(refNext.system);
    expect(skillMessages(next.system).map((s) => s.split('\n')[0])).toEqual(['[Skill: deployment]', '[Skill: testing-strategy]']);
    expect(await next.tools.load_skill.execute({ skillName: 'testing-strategy' }, {})).toEqual(
      await refNext.tools.load_skill.execute({ skillName: 'testing-strategy' }, {}),
    );
    expect(processor.getStateStats()).toEqual({ threadCount: 0, oldestAccessTime: null });
    await processor.clearAllState();
  });

  it('a forged or removed skill name in Redis is ignored; the text shown is what the workspace has now', async () => {
    const processor = new SkillSearchProcessor({ workspace: skillsFx.make(), storage: redisStore(client) });
    await admin.zAdd('mastra:skill-search:sk-forged', [
      { score: 0, value: 'no-such-skill' },
      { score: 1, value: '../../etc/passwd' },
      { score: 2, value: 'testing-strategy' },
    ]);
    const s = await step(processor, { threadId: 'sk-forged' });
    expect(skillMessages(s.system).map((m) => m.split('\n')[0])).toEqual(['[Skill: testing-strategy]']);
    await processor.clearAllState();
  });

  it('the processor ttl is the key TTL', async () => {
    const processor = new SkillSearchProcessor({ workspace: skillsFx.make(), storage: redisStore(client), ttl: 300 });
    await (await step(processor, { threadId: 'sk-ttl' })).tools.load_skill.execute({ skillName: 'testing-strategy' }, {});
    const ttl = await admin.pTTL('mastra:skill-search:sk-ttl');
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(300);
    await sleep(450);
    expect(skillMessages((await step(processor, { threadId: 'sk-ttl' })).system)).toEqual([]);
    processor.dispose();
  });
});

describe('bad storage values', () => {
  it('get a TypeError naming options.storage and what it accepts', () => {
    const tools = makeTools();
    expect(() => new ToolSearchProcessor({ tools, storage: 'redis' as any })).toThrow(
      /^ToolSearchProcessor: options\.storage must be 'in-memory', 'context' or a state store such as redisStore\(client\); received the string "redis"\.$/,
    );
    expect(() => new ToolSearchProcessor({ tools, storage: { load: async () => [] } as any })).toThrow(
      /^ToolSearchProcessor: options\.storage must be .*received an object without a add\(\) method\.$/,
    );
    expect(() => new SkillSearchProcessor({ workspace: skillsFx.make(), storage: 'context' as any })).toThrow(
      /^SkillSearchProcessor: options\.storage must be 'in-memory' or a state store such as redisStore\(client\); received the string "context"\.$/,
    );
    expect(() => new SkillSearchProcessor({ workspace: skillsFx.make(), storage: { load() {}, add() {}, clear() {} } as any })).toThrow(
      /^SkillSearchProcessor: options\.storage must be 'in-memory' or a state store such as redisStore\(client\); received an object without a clearAll\(\) method\.$/,
    );
    expect(() => new ToolSearchProcessor({ tools, storage: memoryStore() })).not.toThrow();
  });
});

// --- two processes -------------------------------------------------------------------------

/** fixtures/processor-store-child.mjs: both processors on redisStore in another process. */
class Child extends LineChild {
  call(op: string, thread: string, name?: string): Promise<any> {
    return this.request({ op, thread, name });
  }
}

function startChild(): Child {
  const fixture = path.join(__dirname, '..', 'fixtures', 'processor-store-child.mjs');
  const proc = spawn(process.execPath, [fixture, String(server.port), skillsFx.root], { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Child(proc);
}

describe('two Node processes, each with its own processors, sharing one Redis', () => {
  it('a tool loaded through A is offered by B\u2019s next step, and back; the same for skills; threads stay apart', async () => {
    const a = startChild();
    const b = startChild();
    try {
      await Promise.all([a.ready, b.ready]);
      const [pidA, pidB] = [a.proc.pid, b.proc.pid];
      expect(pidA).not.toBe(pidB);
      expect(await b.call('toolStep', 'shared-1')).toEqual(['search_tools', 'load_tool']);
      expect(await a.call('loadTool', 'shared-1', 'get_weather')).toMatchObject({ success: true, toolName: 'get_weather' });
      expect(await b.call('toolStep', 'shared-1')).toEqual(['search_tools', 'load_tool', 'get_weather']);
      // B sees it as loaded, and its own load shows up in A in B's order.
      expect(await b.call('loadTool', 'shared-1', 'get_weather')).toMatchObject({ message: 'Tool "get_weather" is already loaded and available.' });
      expect(await b.call('loadTool', 'shared-1', 'send_email')).toMatchObject({ success: true });
      expect(await a.call('toolStep', 'shared-1')).toEqual(['search_tools', 'load_tool', 'get_weather', 'send_email']);
      expect(await a.call('toolStep', 'shared-2')).toEqual(['search_tools', 'load_tool']);

      expect(await b.call('skillStep', 'shared-1')).toEqual([]);
      expect(await a.call('loadSkill', 'shared-1', 'deployment')).toMatchObject({ success: true, skillName: 'deployment' });
      const shown = await b.call('skillStep', 'shared-1');
      expect(shown.map((s: string) => s.split('\n')[0])).toEqual(['[Skill: deployment]']);
      expect(await b.call('loadSkill', 'shared-1', 'deployment')).toEqual({
        success: true,
        message: 'Skill "deployment" is already loaded.',
        skillName: 'deployment',
      });
      expect(await a.call('skillStep', 'shared-2')).toEqual([]);

      // Interleaved loads from both processes on one thread: every load lands once.
      await Promise.all([
        a.call('loadTool', 'shared-3', 'calendar_schedule'),
        b.call('loadTool', 'shared-3', 'stock_quote'),
        a.call('loadTool', 'shared-3', 'stock_quote'),
        b.call('loadTool', 'shared-3', 'get_weather'),
      ]);
      const seenA = await a.call('toolStep', 'shared-3');
      const seenB = await b.call('toolStep', 'shared-3');
      expect(seenA).toEqual(seenB);
      expect([...seenA.slice(2)].sort()).toEqual(['calendar_schedule', 'get_weather', 'stock_quote']);
    } finally {
      await Promise.all([a.close(), b.close()]);
      for (const key of await admin.keys('mastra:*')) await admin.del(key);
    }
  });
});

// --- faults --------------------------------------------------------------------------------

describe('redis-server killed and restarted mid-conversation', () => {
  it('steps degrade to nothing loaded with one warning per outage, loads say they did not take, and the next step after the restart works', async () => {
    const own = recommendedClient(server.url);
    await own.connect();
    const store = redisStore(own, { timeoutMs: 300 });
    const tools = new ToolSearchProcessor({ tools: makeTools(), storage: store });
    const skills = new SkillSearchProcessor({ workspace: skillsFx.make(), storage: store });
    const toolLog = recordingLogger();
    const skillLog = recordingLogger();
    tools.__registerMastra(toolLog.mastra as any);
    skills.__registerMastra(skillLog.mastra as any);
    try {
      await (await step(tools, { threadId: 'outage' })).tools.load_tool.execute({ toolName: 'get_weather' }, {});
      await (await step(skills, { threadId: 'outage' })).tools.load_skill.execute({ skillName: 'testing-strategy' }, {});
      const before = await step(tools, { threadId: 'outage' });
      expect(loadedKeys(before.tools)).toEqual(['get_weather']);

      for (let outage = 1; outage <= 2; outage++) {
        await server.stop();
        for (let i = 0; i < 3; i++) {
          const started = performance.now();
          const s = await step(tools, { threadId: 'outage' });
          expect(performance.now() - started).toBeLessThan(2_000);
          expect(Object.keys(s.tools)).toEqual(['search_tools', 'load_tool']);
          expect(await s.tools.load_tool.execute({ toolName: 'send_email' }, {})).toEqual({
            success: false,
            message: 'Tool "send_email" could not be loaded right now (loaded-tool state is unavailable). Try again.',
            toolName: 'send_email',
          });
          const multi = await s.tools.load_tool.execute({ toolNames: ['send_email', 'nope'] }, {});
          expect(multi).toEqual({
            success: false,
            message: 'Not found: nope | Not loaded (state unavailable, try again): send_email',
            loadedCount: 0,
            notFound: ['nope'],
          });
          const sk = await step(skills, { threadId: 'outage' });
          expect(skillMessages(sk.system)).toEqual([]);
          expect(await sk.tools.load_skill.execute({ skillName: 'deployment' }, {})).toEqual({
            success: false,
            message: 'Skill "deployment" could not be loaded right now (loaded-skill state is unavailable). Try again.',
          });
          expect((await tools.clearState('outage') as { ok: boolean }).ok).toBe(false);
        }
        // One step warning per outage; clearState's failures warn apart, once, and that admin
        // outage lasts until an admin call succeeds (none does here).
        const stepWarns = toolLog.warns.filter((w) => !/state store clear failed/.test(String(w[0])));
        const adminWarns = toolLog.warns.filter((w) => /state store clear failed/.test(String(w[0])));
        expect(stepWarns.length).toBe(outage);
        expect(adminWarns.length).toBe(1);
        expect(String(adminWarns[0][0])).toMatch(/^ToolSearchProcessor: state store clear failed \(.+\); clearState\(\) resolved \{ ok: false, error \}; the thread may still hold its names\.$/);
        expect(skillLog.warns.length).toBe(outage);
        expect(String(stepWarns[outage - 1][0])).toMatch(/^ToolSearchProcessor: state store load failed \(.+\); treating the thread as having nothing loaded/);
        expect(String(skillLog.warns[outage - 1][0])).toMatch(/^SkillSearchProcessor: state store load failed/);

        await server.restart();
        // The client reconnects by itself (no processor or client restart).
        const deadline = Date.now() + 10_000;
        while (!own.isReady && Date.now() < deadline) await sleep(20);
        expect(own.isReady).toBe(true);
        // The server restarted empty (no persistence): nothing loaded, and loads work again.
        const after = await step(tools, { threadId: 'outage' });
        expect(loadedKeys(after.tools)).toEqual([]);
        expect(await after.tools.load_tool.execute({ toolName: 'get_weather' }, {})).toMatchObject({ success: true });
        expect(loadedKeys((await step(tools, { threadId: 'outage' })).tools)).toEqual(['get_weather']);
        expect(await (await step(skills, { threadId: 'outage' })).tools.load_skill.execute({ skillName: 'testing-strategy' }, {})).toMatchObject({
          success: true,
        });
        expect(skillMessages((await step(skills, { threadId: 'outage' })).system).length).toBe(1);
        expect(toolLog.warns.length).toBe(outage + 1);
      }
      expect(unhandled).toEqual([]);
    } finally {
      await own.close().catch(() => {});
    }
  });

  it('with the client\u2019s default settings (offline queue) a step is bounded by timeoutMs, warned once through console.warn without a logger', async () => {
    const own = createClient({ url: server.url });
    own.on('error', () => {});
    await own.connect();
    const processor = new ToolSearchProcessor({ tools: makeTools(), storage: redisStore(own, { timeoutMs: 200 }) });
    const warns: unknown[] = [];
    const original = console.warn;
    console.warn = (...args: unknown[]) => void warns.push(args);
    try {
      await server.stop();
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        const s = await step(processor, { threadId: 'queued' });
        expect(performance.now() - started).toBeLessThan(1_000);
        expect(Object.keys(s.tools)).toEqual(['search_tools', 'load_tool']);
      }
      expect(warns.length).toBe(1);
      await server.restart();
      const deadline = Date.now() + 10_000;
      while (!own.isReady && Date.now() < deadline) await sleep(20);
      await (await step(processor, { threadId: 'queued' })).tools.load_tool.execute({ toolName: 'get_weather' }, {});
      expect(loadedKeys((await step(processor, { threadId: 'queued' })).tools)).toEqual(['get_weather']);
      expect(warns.length).toBe(1);
      expect(unhandled).toEqual([]);
    } finally {
      console.warn = original;
      if (!server.running) await server.restart();
      await own.close().catch(() => {});
      await admin.del('mastra:tool-search:queued').catch(() => {});
    }
  });
});

describe('a slow (paused) redis-server', () => {
  it('no step waits past timeoutMs; nothing loaded and one warning while paused; the next step after it resumes works', async () => {
    const own = recommendedClient(server.url);
    await own.connect();
    const info = await admin.info('server');
    const pid = Number(/process_id:(\d+)/.exec(String(info))![1]);
    const tools = new ToolSearchProcessor({ tools: makeTools(), storage: redisStore(own, { timeoutMs: 200 }) });
    const skills = new SkillSearchProcessor({ workspace: skillsFx.make(), storage: redisStore(own, { timeoutMs: 200 }) });
    const toolLog = recordingLogger();
    const skillLog = recordingLogger();
    tools.__registerMastra(toolLog.mastra as any);
    skills.__registerMastra(skillLog.mastra as any);
    try {
      await (await step(tools, { threadId: 'paused' })).tools.load_tool.execute({ toolName: 'get_weather' }, {});
      process.kill(pid, 'SIGSTOP');
      try {
        for (let i = 0; i < 3; i++) {
          let started = performance.now();
          const s = await step(tools, { threadId: 'paused' });
          expect(performance.now() - started).toBeLessThan(1_000);
          expect(Object.keys(s.tools)).toEqual(['search_tools', 'load_tool']);
          started = performance.now();
          expect(await s.tools.load_tool.execute({ toolName: 'send_email' }, {})).toMatchObject({ success: false });
          expect(performance.now() - started).toBeLessThan(1_000);
          started = performance.now();
          const sk = await step(skills, { threadId: 'paused' });
          expect(performance.now() - started).toBeLessThan(1_000);
          expect(await sk.tools.load_skill.execute({ skillName: 'deployment' }, {})).toMatchObject({ success: false });
        }
        expect(toolLog.warns.length).toBe(1);
        expect(String(toolLog.warns[0][0])).toContain('timed out after 200 ms');
        expect(skillLog.warns.length).toBe(1);
      } finally {
        process.kill(pid, 'SIGCONT');
      }
      // Once the server answers again: get_weather is still there (a timed-out write may still
      // land: harmless, the next step re-checks every name).
      const after = await step(tools, { threadId: 'paused' });
      expect(loadedKeys(after.tools)).toContain('get_weather');
      expect(await after.tools.load_tool.execute({ toolName: 'stock_quote' }, {})).toMatchObject({ success: true });
      expect(loadedKeys((await step(tools, { threadId: 'paused' })).tools)).toContain('stock_quote');
      expect(unhandled).toEqual([]);
    } finally {
      await own.close().catch(() => {});
      await admin.del(['mastra:tool-search:paused', 'mastra:skill-search:paused']).catch(() => {});
    }
  });
});

describe('custom store objects that misbehave (no Redis involved)', () => {
  const base = () => ({
    load: async () => ['get_weather'],
    add: async () => {},
    clear: async () => {},
    clearAll: async () => {},
  });
  const cases: Array<[string, Record<string, unknown>]> = [
    ['load throws synchronously', { load: () => { throw new Error('boom'); } }],
    ['load rejects', { load: async () => { throw new Error('boom'); } }],
    ['load never settles', { load: () => new Promise(() => {}), timeoutMs: 50 }],
    ['load resolves a non-array', { load: async () => 'get_weather' }],
  ];
  for (const [what, override] of cases) {
    it(`${what}: the step offers nothing loaded, warns once, and never rejects`, async () => {
      const processor = new ToolSearchProcessor({ tools: makeTools(), storage: { ...base(), ...override } as any });
      const log = recordingLogger();
      processor.__registerMastra(log.mastra as any);
      for (let i = 0; i < 3; i++) {
        expect(Object.keys((await step(processor, { threadId: 'custom' })).tools)).toEqual(['search_tools', 'load_tool']);
      }
      expect(log.warns.length).toBe(1);
    });
  }

  it('a store that works offers what it returns, through the filter, and a store whose add rejects makes loads report honestly', async () => {
    const processor = new ToolSearchProcessor({ tools: makeTools(), storage: base() as any });
    expect(loadedKeys((await step(processor, { threadId: 'custom' })).tools)).toEqual(['get_weather']);
    const failing = new ToolSearchProcessor({
      tools: makeTools(),
      storage: { ...base(), load: async () => [], add: async () => { throw new Error('read-only replica'); } } as any,
      search: { autoLoad: true },
    });
    const log = recordingLogger();
    failing.__registerMastra(log.mastra as any);
    const result = await (await step(failing, { threadId: 'custom' })).tools.search_tools.execute({ query: 'weather' }, {});
    expect(result.message).toBe('Found 1 tool(s) but could not load them right now (loaded-tool state is unavailable). Try again.');
    expect(result.results.map((r: any) => r.name)).toEqual(['get_weather']);
    expect(String(log.warns[0][0])).toContain('state store add failed (read-only replica)');
    expect(unhandled).toEqual([]);
  });
});
