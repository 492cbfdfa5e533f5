// Concurrency at the processor level (issue 11): 10,000 concurrent processInputStep calls over
// 1,000 threads, each followed by a load, on every kind of loaded-state storage: in-memory
// (Rust), context (messages), memoryStore() and redisStore() on a real redis-server. Every
// step may only offer names its own thread loaded, nothing is lost, and each thread ends with
// exactly its own names.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { createTool } from '@mastra/core/tools';
import { MessageList } from '@mastra/core/agent';
import { z } from 'zod';

import { ToolSearchProcessor, SkillSearchProcessor, redisStore, memoryStore } from '../../index.js';
import { contextFor, tempSkillsWorkspace, type TempWorkspace } from '../support/skill-search';
import { startRedisServer, type RedisServer } from '../support/redis-server';

const THREADS = 1_000;
const ROUNDS = 10;
const TOOL_COUNT = 40;

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
process.on('unhandledRejection', onUnhandled);

let server: RedisServer;
let client: ReturnType<typeof createClient>;
let skillsFx: TempWorkspace;

beforeAll(async () => {
  server = await startRedisServer();
  client = createClient({ url: server.url, disableOfflineQueue: true });
  client.on('error', () => {});
  await client.connect();
  skillsFx = tempSkillsWorkspace();
});

afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  await client?.close().catch(() => {});
  await server?.close();
  skillsFx?.cleanup();
});

const toolName = (n: number) => `tool_${String(n).padStart(2, '0')}`;
const tools = Object.fromEntries(
  Array.from({ length: TOOL_COUNT }, (_, n) => [
    toolName(n),
    createTool({ id: toolName(n), description: `tool number ${n}`, inputSchema: z.object({}), execute: async () => ({ n }) } as any),
  ]),
);

/** The tool thread `i` loads in round `k`: ten distinct names per thread, overlapping across threads. */
const wanted = (i: number, k: number) => toolName((i * 7 + k * 3) % TOOL_COUNT);
const threadOf = (i: number) => `conc-${i}`;

/** What context storage reads: the thread's completed load_tool calls of earlier rounds. */
function history(i: number, k: number) {
  return Array.from({ length: k }, (_, r) => ({
    role: 'assistant',
    content: {
      format: 2,
      parts: [
        {
          type: 'tool-invocation',
          toolInvocation: {
            state: 'result',
            toolCallId: `c-${i}-${r}`,
            toolName: 'load_tool',
            args: { toolNames: [wanted(i, r)] },
            result: { success: true, message: 'ok', loadedCount: 1, loaded: [wanted(i, r)] },
          },
        },
      ],
    },
  }));
}

function recordingLogger() {
  const warns: unknown[][] = [];
  const logger = { warn: (...args: unknown[]) => warns.push(args), info() {}, debug() {}, error() {} };
  return { warns, mastra: { getLogger: () => logger } };
}

const cases: Array<[string, () => Record<string, unknown>]> = [
  ['in-memory', () => ({})],
  ['context', () => ({ storage: 'context' })],
  ['memoryStore()', () => ({ storage: memoryStore() })],
  // Not a timeout test: 20,000 round trips are in flight at once on one connection.
  ['redisStore(client)', () => ({ storage: redisStore(client, { keyPrefix: 'conc-tools:', timeoutMs: 60_000 }) })],
];

describe('ToolSearchProcessor: 10,000 concurrent steps over 1,000 threads with interleaved loads', () => {
  for (const [label, options] of cases) {
    it(`${label}: every thread sees only its own names and ends with exactly them`, async () => {
      const processor = new ToolSearchProcessor({ tools, ...options() });
      const logged = recordingLogger();
      processor.__registerMastra(logged.mastra as any);
      const isContext = label === 'context';
      const own = (i: number) => new Set(Array.from({ length: ROUNDS }, (_, k) => wanted(i, k)));
      const stepOf = async (i: number, k: number) => {
        const result = await processor.processInputStep({
          tools: {},
          messageList: new MessageList({ threadId: threadOf(i), resourceId: 'r' }),
          requestContext: contextFor(threadOf(i)),
          messages: isContext ? history(i, k) : [],
          stepNumber: k,
        } as any);
        return result.tools as Record<string, any>;
      };
      const violations: string[] = [];
      // Rounds interleave: j walks the threads ROUNDS times, all 10,000 started at once.
      await Promise.all(
        Array.from({ length: THREADS * ROUNDS }, async (_, j) => {
          const i = j % THREADS;
          const k = Math.floor(j / THREADS);
          const offered = await stepOf(i, k);
          const mine = own(i);
          for (const key of Object.keys(offered)) {
            if (key !== 'search_tools' && key !== 'load_tool' && !mine.has(key)) violations.push(`${threadOf(i)} offered ${key}`);
          }
          // Context storage reads what the history says was loaded.
          if (isContext) for (let r = 0; r < k; r++) if (!(wanted(i, r) in offered)) violations.push(`${threadOf(i)} lost ${wanted(i, r)}`);
          const result = await offered.load_tool.execute({ toolName: wanted(i, k) }, {});
          if (result.success !== true) violations.push(`${threadOf(i)} load ${wanted(i, k)}: ${result.message}`);
        }),
      );
      expect(violations).toEqual([]);
      const finals = await Promise.all(Array.from({ length: THREADS }, (_, i) => stepOf(i, ROUNDS)));
      for (let i = 0; i < THREADS; i++) {
        const loaded = Object.keys(finals[i]).filter((key) => key !== 'search_tools' && key !== 'load_tool');
        expect(new Set(loaded)).toEqual(own(i));
        expect(loaded.length).toBe(ROUNDS);
      }
      expect(logged.warns).toEqual([]);
      expect(unhandled).toEqual([]);
      if (label.startsWith('redis')) {
        expect(await processor.getStoreStats()).toMatchObject({ threadCount: THREADS });
        expect(await processor.clearAllState()).toEqual({ ok: true });
      }
      processor.dispose();
    }, 120_000);
  }
});

describe('SkillSearchProcessor: 10,000 concurrent steps over 1,000 threads with interleaved loads', () => {
  const SKILLS = ['deployment', 'testing-strategy', 'code-review', 'security-review', 'sql-style', 'rust-style', 'localization', 'pricing-pages'];
  const skillWanted = (i: number, k: number) => SKILLS[(i + k) % SKILLS.length];
  const SKILL_ROUNDS = SKILLS.length;
  for (const [label, storage] of [
    ['in-memory', () => undefined],
    ['redisStore(client)', () => redisStore(client, { keyPrefix: 'conc-skills:', timeoutMs: 60_000 })],
  ] as const) {
    it(`${label}: every thread shows only its own skills and ends with exactly them`, async () => {
      const s = storage();
      const processor = new SkillSearchProcessor({ workspace: skillsFx.make(), ...(s ? { storage: s } : {}) });
      const logged = recordingLogger();
      processor.__registerMastra(logged.mastra as any);
      const names = await (await skillsFx.make().skills!.list()).map((m: any) => m.name);
      expect(names).toEqual(expect.arrayContaining(SKILLS));
      const stepOf = async (i: number, k: number) => {
        const messageList = new MessageList({ threadId: threadOf(i), resourceId: 'r' });
        const result = await processor.processInputStep({
          tools: {},
          messageList,
          requestContext: contextFor(threadOf(i)),
          messages: [],
          stepNumber: k,
        } as any);
        const shown = messageList
          .getSystemMessages()
          .map((m: any) => String(m.content))
          .filter((c) => c.startsWith('[Skill: '))
          .map((c) => c.slice('[Skill: '.length, c.indexOf(']')));
        return { tools: result.tools as Record<string, any>, shown };
      };
      const violations: string[] = [];
      const total = THREADS * 10;
      await Promise.all(
        Array.from({ length: total }, async (_, j) => {
          const i = j % THREADS;
          const k = Math.floor(j / THREADS) % SKILL_ROUNDS;
          const { tools: offered, shown } = await stepOf(i, 1);
          const mine = new Set(Array.from({ length: SKILL_ROUNDS }, (_, r) => skillWanted(i, r)));
          for (const name of shown) if (!mine.has(name)) violations.push(`${threadOf(i)} shown ${name}`);
          const result = await offered.load_skill.execute({ skillName: skillWanted(i, k) }, {});
          if (result.success !== true) violations.push(`${threadOf(i)} load ${skillWanted(i, k)}: ${result.message}`);
        }),
      );
      expect(violations).toEqual([]);
      for (let i = 0; i < THREADS; i += 1) {
        const { shown } = await stepOf(i, 1);
        expect(new Set(shown)).toEqual(new Set(Array.from({ length: SKILL_ROUNDS }, (_, r) => skillWanted(i, r))));
        expect(shown.length).toBe(SKILL_ROUNDS);
      }
      expect(logged.warns).toEqual([]);
      expect(unhandled).toEqual([]);
      if (s) expect(await processor.clearAllState()).toEqual({ ok: true });
      processor.dispose();
    }, 120_000);
  }
});
