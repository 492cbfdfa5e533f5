// SkillSearchProcessor under DurableAgent on every host that exports @mastra/core/agent/durable:
// search_skills -> load_skill -> a `requireApproval` tool; the run suspends for approval. After
// the approval the model's next prompt (the resumed run) and the thread's next turn must still
// hold the loaded skill's instructions. Approved while the run is warm, or after the durable run
// registry entry expired (globalRunRegistry, simulated by deleting the entry), the processor's
// own state has the skill (host and ours). After a restart (a child process on the same LibSQL
// file) the resumed run still has it, from the message list DurableAgent keeps in its workflow
// snapshot; the next turn does not with in-memory state (host and ours), and does with a
// shared store (redisStore, ours). See docs/durable.md.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { HOST_VERSIONS, HOSTS_DIR } from '../support/hosts';
import { useRedis } from '../support/redis-client';
import { runNode } from '../support/run-node';

const { buildSkillSetup, promptHasSkill, THREAD } = createRequire(__filename)('../fixtures/durable-skill-setup.cjs');
const { approve } = createRequire(__filename)('../fixtures/durable-setup.cjs');
const CHILD = join(__dirname, '..', 'fixtures', 'durable-skill-child.cjs');

/** Hosts whose @mastra/core exports agent/durable (every installed one today). */
const DURABLE_HOSTS = HOST_VERSIONS.filter((v) => {
  const req = createRequire(join(HOSTS_DIR, v, 'package.json'));
  return Boolean(req('@mastra/core/package.json').exports?.['./agent/durable']);
});

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

type Case = { version: string; impl: 'host' | 'ours'; storage?: 'in-memory' | 'redis'; redisUrl?: string; redisPrefix?: string };

/** Runs until the approval suspension; returns the setup, the run id and the options to rebuild it. */
async function suspendForApproval(c: Case) {
  const root = mkdtempSync(join(tmpdir(), 'mnp-durable-skill-'));
  dirs.push(root);
  const options = { hostDir: join(HOSTS_DIR, c.version), impl: c.impl, storage: c.storage ?? 'in-memory', db: join(root, 'run.db'), root, redisUrl: c.redisUrl, redisPrefix: c.redisPrefix };
  const setup = await buildSkillSetup(options);
  const output = await setup.agent.generate('Deploy the api service', { memory: THREAD, maxSteps: 6 });
  expect(output.finishReason).toBe('suspended');
  expect(setup.log.length).toBe(3);
  // the skill loaded at step 1 is in the prompt of the step that called the approval tool
  expect(promptHasSkill(setup.log[1].prompt)).toBe(false);
  expect(promptHasSkill(setup.log[2].prompt)).toBe(true);
  return { setup, runId: output.runId as string, options };
}

/** Approves in this process, then sends the next turn; whether both prompts held the skill. */
async function approveHere(setup: any, runId: string) {
  const output = await approve(setup.agent, runId);
  expect(output.error).toBeUndefined();
  expect(setup.log.length).toBe(4);
  await setup.agent.generate('Thanks. Anything else?', { memory: THREAD, maxSteps: 2 });
  expect(setup.log.length).toBe(5);
  return { ran: setup.ran.deploy, text: output.text, skillInPrompt: promptHasSkill(setup.log[3].prompt), skillInNextTurn: promptHasSkill(setup.log[4].prompt) };
}

async function approveInChild(options: Record<string, unknown>, runId: string) {
  const run = await runNode([CHILD, JSON.stringify({ ...options, runId, start: 3 })], 60_000);
  const last = run.stdout.trim().split('\n').pop() ?? '';
  const parsed = JSON.parse(last);
  if (parsed.crashed) throw new Error(parsed.crashed);
  expect(parsed.error).toBeUndefined();
  expect(parsed.calls).toBe(1);
  return parsed;
}

for (const version of DURABLE_HOSTS) {
  describe(`DurableAgent with SkillSearchProcessor on @mastra/core ${version}`, () => {
    it('approve while the run is warm: the loaded skill is in the resumed run and the next turn (host and ours)', async () => {
      for (const impl of ['host', 'ours'] as const) {
        const { setup, runId } = await suspendForApproval({ version, impl });
        expect(await approveHere(setup, runId), impl).toEqual({ ran: 1, text: 'deployed', skillInPrompt: true, skillInNextTurn: true });
      }
    });

    it("approve after the run registry entry expired: the processor's own state still has the skill (host and ours)", async () => {
      for (const impl of ['host', 'ours'] as const) {
        const { setup, runId } = await suspendForApproval({ version, impl });
        setup.modules.durable.globalRunRegistry.delete(runId);
        expect(await approveHere(setup, runId), impl).toEqual({ ran: 1, text: 'deployed', skillInPrompt: true, skillInNextTurn: true });
      }
    });

    it("approve after a restart with in-memory state: the resumed run keeps the skill (DurableAgent's snapshot), the next turn has lost it (host and ours)", async () => {
      const warnings: Record<string, string[]> = {};
      for (const impl of ['host', 'ours'] as const) {
        const { runId, options } = await suspendForApproval({ version, impl });
        const result = await approveInChild(options, runId);
        expect(result, impl).toMatchObject({ ran: 1, text: 'deployed', skillInPrompt: true, skillInNextTurn: false });
        warnings[impl] = result.warnings;
      }
      // the same console warnings (1.58-1.60 warn that the restored run's tools shadow the meta-tools)
      expect(warnings.ours).toEqual(warnings.host);
    });
  });
}

describe('a shared store (redisStore): approve after a restart', () => {
  const redis = useRedis();
  for (const version of DURABLE_HOSTS) {
    it(`ours on @mastra/core ${version}: the skill loaded before the suspension is in the resumed run and the next turn`, async () => {
      const prefix = `durable-skill-${version}-${Date.now()}:`;
      const { runId, options } = await suspendForApproval({ version, impl: 'ours', storage: 'redis', redisUrl: redis.server.url, redisPrefix: prefix });
      const result = await approveInChild(options, runId);
      expect(result).toMatchObject({ ran: 1, text: 'deployed', skillInPrompt: true, skillInNextTurn: true });
    });
  }
});
