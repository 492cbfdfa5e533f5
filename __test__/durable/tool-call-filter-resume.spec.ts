// ToolCallFilter across a suspend/resume, on every host that exports @mastra/core/agent/durable:
// turn 1 calls a tool (history), turn 2 calls `ask_user`, which suspends; the run is resumed with
// the user's answer. The model's next prompt must hold the resumed run's own ask_user call and
// its result (else the model asks again and loops), while turn 1's tool call stays filtered.
// A plain Agent on the host's prompt-stage filter (1.60+) strips the resumed call
// (mastra-ai/mastra#24382); ours keeps it (docs/differences.md). Under DurableAgent, and with
// `filterAfterToolSteps`, both keep it.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import { HOST_VERSIONS, HOSTS_DIR, loadHost } from '../support/hosts';

const { buildSetup, THREAD } = createRequire(__filename)('../fixtures/durable-setup.cjs');

const DURABLE_HOSTS = HOST_VERSIONS.filter((v) => {
  const req = createRequire(join(HOSTS_DIR, v, 'package.json'));
  return Boolean(req('@mastra/core/package.json').exports?.['./agent/durable']);
});

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The tool parts (`<type>:<toolName>`) of the model's prompt after the resume. */
async function promptAfterResume(version: string, impl: 'host' | 'ours', kind: 'agent' | 'durable', filterOptions = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'mnp-tcf-resume-'));
  dirs.push(dir);
  const setup = await buildSetup({ hostDir: join(HOSTS_DIR, version), impl, processor: 'tool-call-filter', kind, db: join(dir, 'run.db'), filterOptions });
  const agent = setup.agent;
  expect((await agent.generate('What is the weather?', { memory: THREAD, maxSteps: 4 })).text).toBe('sunny');
  const suspended = await agent.generate('Ask me for a colour', { memory: THREAD, maxSteps: 4 });
  expect(suspended.finishReason).toBe('suspended');
  const resumed =
    kind === 'agent'
      ? await agent.resumeGenerate({ answer: 'blue' }, { runId: suspended.runId, memory: THREAD })
      : await agent.resumeGenerate(suspended.runId, { answer: 'blue' }, { memory: THREAD });
  expect(setup.ran.ask).toBe(1);
  expect(resumed.text).toBe('You chose a colour.');
  const prompt = setup.log.at(-1).prompt as any[];
  return prompt.flatMap((m) => (Array.isArray(m.content) ? m.content.filter((p: any) => p.toolName).map((p: any) => `${p.type}:${p.toolName}`) : []));
}

const RESUMED = ['tool-call:ask_user', 'tool-result:ask_user'];

for (const version of DURABLE_HOSTS) {
  describe(`@mastra/core ${version}`, () => {
    it('a plain Agent, default options: ours keeps the resumed call and its result; turn 1 stays filtered', async () => {
      const ours = await promptAfterResume(version, 'ours', 'agent');
      expect(ours).toEqual(RESUMED);
      const host = await promptAfterResume(version, 'host', 'agent');
      const ourHost = loadHost(version).ourHost.host;
      // #24382 on the host's prompt-stage filter; its messages stage (1.58/1.59) keeps the call
      expect(host).toEqual(ourHost.capabilities.toolCallFilterStage === 'prompt' ? [] : RESUMED);
    });

    it('a plain Agent, filterAfterToolSteps: 1: both keep the resumed call', async () => {
      expect(await promptAfterResume(version, 'ours', 'agent', { filterAfterToolSteps: 1 })).toEqual(RESUMED);
      expect(await promptAfterResume(version, 'host', 'agent', { filterAfterToolSteps: 1 })).toEqual(RESUMED);
    });

    it('DurableAgent, default options: both keep the resumed call', async () => {
      expect(await promptAfterResume(version, 'ours', 'durable')).toEqual(RESUMED);
      expect(await promptAfterResume(version, 'host', 'durable')).toEqual(RESUMED);
    });
  });
}
