// ToolSearchProcessor under DurableAgent (and a plain Agent) on every host that exports
// @mastra/core/agent/durable: search -> load -> a `requireApproval` tool; the run suspends for
// approval. Approved while the run is warm, the call runs with either processor. Approved after
// the durable run registry entry expired (globalRunRegistry, simulated by deleting the entry) or
// after a restart (a child process sharing the LibSQL file), the host's processor loses the
// loaded tool (mastra-ai/mastra#24787: the call fails as "Tool ... not found") and ours reads the
// suspended thread's loads back from storage (docs/durable.md). A shared store (redisStore)
// survives a restart on its own.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { HOST_VERSIONS, HOSTS_DIR } from '../support/hosts';
import { useRedis } from '../support/redis-client';
import { runNode } from '../support/run-node';

const setupModule = createRequire(__filename)('../fixtures/durable-setup.cjs');
const { buildSetup, approve, decline, storedInvocations, THREAD } = setupModule;
const CHILD = join(__dirname, '..', 'fixtures', 'durable-approve-child.cjs');

/** Hosts whose @mastra/core exports agent/durable (every installed one today). */
const DURABLE_HOSTS = HOST_VERSIONS.filter((v) => {
  const req = createRequire(join(HOSTS_DIR, v, 'package.json'));
  return Boolean(req('@mastra/core/package.json').exports?.['./agent/durable']);
});
const NEWEST = DURABLE_HOSTS[DURABLE_HOSTS.length - 1];

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function freshDb() {
  const dir = mkdtempSync(join(tmpdir(), 'mnp-durable-'));
  dirs.push(dir);
  return join(dir, 'run.db');
}

type Case = { version: string; impl: 'host' | 'ours'; storage: string; kind?: 'durable' | 'agent'; redisUrl?: string; redisPrefix?: string };

/** Runs until the approval suspension; returns the setup, the run id and the db path. */
async function suspendForApproval(c: Case) {
  const db = freshDb();
  const options = { hostDir: join(HOSTS_DIR, c.version), impl: c.impl, storage: c.storage, kind: c.kind ?? 'durable', db, redisUrl: c.redisUrl, redisPrefix: c.redisPrefix };
  const setup = await buildSetup(options);
  const output = await setup.agent.generate('Deploy the api service', { memory: THREAD, maxSteps: 6 });
  expect(output.finishReason).toBe('suspended');
  expect(setup.log.length).toBe(3);
  // the loaded tool was offered at the step that called it
  expect(setup.log[2].tools).toContain('deploy_service');
  return { setup, runId: output.runId as string, options };
}

async function approveInChild(options: Record<string, unknown>, runId: string) {
  const run = await runNode([CHILD, JSON.stringify({ start: 3, ...options, runId })], 60_000);
  const last = run.stdout.trim().split('\n').pop() ?? '';
  const parsed = JSON.parse(last);
  if (parsed.crashed) throw new Error(parsed.crashed);
  return parsed;
}

const notFound = /Tool "deploy_service" not found/;

for (const version of DURABLE_HOSTS) {
  describe(`DurableAgent on @mastra/core ${version}`, () => {
    for (const storage of ['context', 'in-memory']) {
      describe(`storage: '${storage}'`, () => {
        it('search -> load -> approve while the run is warm: the approved call runs (host and ours)', async () => {
          for (const impl of ['host', 'ours'] as const) {
            const { setup, runId } = await suspendForApproval({ version, impl, storage });
            const output = await approve(setup.agent, runId);
            expect(output.error, impl).toBeUndefined();
            expect(setup.ran.deploy, impl).toBe(1);
            expect(output.text, impl).toBe('deployed');
          }
        });

        const expiryTitle = storage === 'context'
          ? 'approve after the run registry entry expired: the host loses the tool (#24787), ours runs it'
          : "approve after the run registry entry expired: the processor's own state still has the tool (host and ours)";
        it(expiryTitle, async () => {
          const results: Record<string, any> = {};
          for (const impl of ['host', 'ours'] as const) {
            const { setup, runId } = await suspendForApproval({ version, impl, storage });
            setup.modules.durable.globalRunRegistry.delete(runId);
            await approve(setup.agent, runId);
            results[impl] = { ran: setup.ran.deploy, stored: await storedInvocations(setup.mastra.getStorage(), 'deploy_service') };
          }
          if (storage === 'context') {
            expect(results.host.ran).toBe(0);
            expect(results.host.stored.at(-1).state).toBe('output-error');
            expect(String(results.host.stored.at(-1).error)).toMatch(notFound);
          } else {
            expect(results.host.ran).toBe(1);
          }
          expect(results.ours.ran).toBe(1);
          expect(results.ours.stored.at(-1)).toMatchObject({ state: 'result', result: { deployed: 'api' } });
        });

        it('approve after a restart (a child process on the same LibSQL file): the host loses the tool (#24787), ours runs it', async () => {
          const results: Record<string, any> = {};
          for (const impl of ['host', 'ours'] as const) {
            const { runId, options } = await suspendForApproval({ version, impl, storage });
            results[impl] = await approveInChild(options, runId);
          }
          expect(results.host.ran).toBe(0);
          expect(String(results.host.stored.at(-1).error)).toMatch(notFound);
          expect(results.ours.ran).toBe(1);
          expect(results.ours.text).toBe('deployed');
          expect(results.ours.stored.at(-1)).toMatchObject({ state: 'result', result: { deployed: 'api' } });
          expect(results.ours.warnings).toEqual([]);
        });
      });
    }
  });
}

describe(`a shared store (redisStore) on @mastra/core ${NEWEST}`, () => {
  const redis = useRedis();
  it('ours: approve after a restart finds the tool in Redis', async () => {
    const prefix = `durable-${Date.now()}`;
    const { runId, options } = await suspendForApproval({ version: NEWEST, impl: 'ours', storage: 'redis', redisUrl: redis.server.url, redisPrefix: prefix });
    const result = await approveInChild(options, runId);
    expect(result.ran).toBe(1);
    expect(result.stored.at(-1)).toMatchObject({ state: 'result', result: { deployed: 'api' } });
  });

  // An approval can come after the thread's key expired (ttl, an hour idle by default): the loads
  // are read back from the thread's persisted messages, as in the other storages.
  for (const preload of [undefined, 'approval']) {
    it(`ours${preload ? ', preloaded' : ''}: approve after a restart and the key's expiry, the call runs`, async () => {
      const prefix = `durable-expired-${preload ?? 'load'}-${Date.now()}`;
      const options = { hostDir: join(HOSTS_DIR, NEWEST), impl: 'ours', storage: 'redis', kind: 'durable', db: freshDb(), redisUrl: redis.server.url, redisPrefix: prefix, ...(preload ? { preload } : {}) };
      const setup = await buildSetup(options);
      const output = await setup.agent.generate('Deploy the api service', { memory: THREAD, maxSteps: 6 });
      expect(output.finishReason).toBe('suspended');
      await setup.redis.close();
      const key = `${prefix}:${THREAD.thread}`;
      expect(await redis.client.zRange(key, 0, -1)).toContain('deploy_service');
      await redis.client.del(key);
      const result = await approveInChild({ ...options, ...(preload ? { start: 1 } : {}) }, output.runId as string);
      expect(result.ran).toBe(1);
      expect(result.stored.at(-1)).toMatchObject({ state: 'result', result: { deployed: 'api' } });
      expect(result.warnings).toEqual([]);
    });
  }
});

for (const version of DURABLE_HOSTS) {
  describe(`a plain Agent with requireApproval on @mastra/core ${version}`, () => {
    it("storage: 'context', approve after a restart: the host loses the tool (#24787), ours runs it", async () => {
      const results: Record<string, any> = {};
      for (const impl of ['host', 'ours'] as const) {
        const { runId, options } = await suspendForApproval({ version, impl, storage: 'context', kind: 'agent' });
        results[impl] = await approveInChild(options, runId);
      }
      expect(results.host.ran).toBe(0);
      expect(results.ours.ran).toBe(1);
      expect(results.ours.stored.at(-1)).toMatchObject({ state: 'result', result: { deployed: 'api' } });
    });
  });
}

// preload (ours): the tool was offered at the first step and called there, so no meta-tool result
// records it; after a restart the resume finds it through the call the run waits on. In storage
// 'context' with learning, the restarted process has not learned what made the tool preload, so
// its preload is not derived again either.
describe('a preloaded tool awaiting approval or a resume (ours)', () => {
  async function suspendPreloaded(options: Record<string, any>, request: string, tool = 'deploy_service') {
    const setup = await buildSetup(options);
    const output = await setup.agent.generate(request, { memory: THREAD, maxSteps: 6 });
    expect(output.finishReason).toBe('suspended');
    expect(setup.log.map((step: any) => step.tools)).toEqual([['search_tools', 'load_tool', tool]]);
    return output.runId as string;
  }

  for (const version of DURABLE_HOSTS) {
    for (const storage of ['in-memory', 'context']) {
      it(`@mastra/core ${version}, storage '${storage}': approved after a restart, the call runs`, async () => {
        const options = { hostDir: join(HOSTS_DIR, version), impl: 'ours', storage, kind: 'durable', db: freshDb(), preload: 'approval' };
        // (the restarted worker's model goes on at the script's second step)
        const result = await approveInChild({ ...options, start: 1 }, await suspendPreloaded(options, 'Deploy the api service'));
        expect(result.ran).toBe(1);
        expect(result.text).toBe('deployed');
        expect(result.stored.at(-1)).toMatchObject({ state: 'result', result: { deployed: 'api' } });
      });
    }
  }

  for (const kind of ['durable', 'agent']) {
    it(`@mastra/core ${NEWEST}, ${kind}, storage 'in-memory': a preloaded tool that suspended resumes after a restart`, async () => {
      const options = { hostDir: join(HOSTS_DIR, NEWEST), impl: 'ours', storage: 'in-memory', kind, db: freshDb(), preload: 'ask' };
      const runId = await suspendPreloaded(options, 'Ask the user a question: which colour?', 'ask_user');
      const result = await approveInChild({ ...options, start: 1, resume: true }, runId);
      expect(result.error).toBeUndefined();
      expect(result.asked).toBe(1);
      expect(result.text).toBe('You chose a colour.');
    });
  }

  // learn: an approved call returned, so it is learned; a declined one never ran and is not.
  for (const version of [DURABLE_HOSTS[0], NEWEST]) {
    for (const kind of ['agent', 'durable']) {
      it(`@mastra/core ${version}, ${kind}, learn: an approved call is learned, a declined one is not`, async () => {
        const learned: Record<string, number> = {};
        for (const answer of ['approve', 'decline'] as const) {
          // (a seed for another tool turns learn on; a resource id comes from the memory)
          const options = { hostDir: join(HOSTS_DIR, version), impl: 'ours', storage: 'in-memory', kind, db: freshDb(), preload: 'approval', learnSeed: { weather: ['Is it raining outside?'] } };
          const setup = await buildSetup(options);
          const output = await setup.agent.generate('Deploy the api service', { memory: THREAD, maxSteps: 6 });
          expect(output.finishReason).toBe('suspended');
          const done = answer === 'approve' ? await approve(setup.agent, output.runId) : await decline(setup.agent, output.runId);
          expect(done.error).toBeUndefined();
          expect(setup.ran.deploy).toBe(answer === 'approve' ? 1 : 0);
          learned[answer] = setup.processor.getLearningStats().examples;
          setup.processor.dispose();
        }
        expect(learned).toEqual({ approve: 1, decline: 0 });
      });
    }
  }

  it(`@mastra/core ${NEWEST}, storage 'context', learn: a tool learned evidence preloaded runs after a restart that lost the evidence`, async () => {
    const options = { hostDir: join(HOSTS_DIR, NEWEST), impl: 'ours', storage: 'context', kind: 'agent', db: freshDb(), preload: 'approval' };
    // Zero-shot, 'Ship it to prod' preloads nothing; the seed makes it preload the deploy tool.
    const unseeded = await buildSetup({ ...options, db: freshDb() });
    await unseeded.agent.generate('Ship it to prod', { memory: THREAD, maxSteps: 6 });
    expect(unseeded.log[0].tools).toEqual(['search_tools', 'load_tool']);
    const runId = await suspendPreloaded({ ...options, learnSeed: { deploy_service: ['Ship it to prod'] } }, 'Ship it to prod');
    const result = await approveInChild({ ...options, start: 1 }, runId);
    expect(result.ran).toBe(1);
    expect(result.stored.at(-1)).toMatchObject({ state: 'result', result: { deployed: 'api' } });
  });
});

describe('nothing to read back: one warning naming what to configure', () => {
  it("storage: 'context' without a registered Mastra or a thread warns once, only for a catalog with an approval tool", async () => {
    const host = createRequire(join(HOSTS_DIR, NEWEST, 'package.json'));
    const { ToolSearchProcessor } = host('mastra-native-processors');
    const { createTool } = host('@mastra/core/tools');
    const { RequestContext } = host('@mastra/core/request-context');
    const gated = createTool({ id: 'deploy_service', description: 'Deploy', requireApproval: true, execute: async () => ({}) });
    const plainTool = createTool({ id: 'weather', description: 'Weather', execute: async () => ({}) });
    const warnings: string[] = [];
    const logger = { warn: (text: string) => warnings.push(text), debug() {}, info() {}, error() {} };
    const withGate = new ToolSearchProcessor({ tools: { deploy_service: gated }, storage: 'context' });
    withGate.__registerMastra({ getLogger: () => logger });
    const withoutGate = new ToolSearchProcessor({ tools: { weather: plainTool }, storage: 'context' });
    withoutGate.__registerMastra({ getLogger: () => logger });
    for (let i = 0; i < 3; i++) {
      expect(await withGate.getLoadedToolsForRequestContext({ requestContext: new RequestContext() })).toEqual({});
      expect(await withoutGate.getLoadedToolsForRequestContext({ requestContext: new RequestContext() })).toEqual({});
    }
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/cannot find the tools this conversation loaded: the request has no memory thread .*redisStore\(client\)/);
  });
});
