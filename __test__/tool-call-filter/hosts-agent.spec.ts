// ToolCallFilter follows the host end to end, on every host of the matrix: a real Agent with
// LibSQL memory, a scripted model, a tool with toModelOutput and one without, a client-sent
// history with tool invocations, and two turns on one thread. Each config runs once with the
// host's own filter and once with ours: what the model was offered and sent at every step, the
// texts, the tool results and the stored thread must be the same.
//
// On 1.58/1.59 hosts ours with `stage: 'prompt'` must send the model exactly the prompts of the
// host's own filter, while the stored thread equals that of a run without any filter — and the
// same test shows that the host's own filter does lose stored tool invocations there.
import { describe, expect, it } from 'vitest';

import { runAgent, type AgentRunResult } from '../support/agent-run';
import { HOST_VERSIONS, loadHost, type Host } from '../support/hosts';
import type { ScriptStep } from '../support/scripted-model';
import { withoutClock, withoutCreatedAt } from '../support/tool-call-filter-generate';
import { clientHistory } from '../support/tool-call-filter-history';

const CONFIGS: Array<Record<string, unknown>> = [
  {},
  { exclude: ['weather'] },
  { filterAfterToolSteps: 1 },
  { preserveModelOutput: true },
  { exclude: ['weather'], filterAfterToolSteps: 2, preserveModelOutput: true },
];

// Turn 1 arrives with a client-sent history holding earlier tool calls and results.
const HISTORY = clientHistory('And Paris and Rome?');

const SCRIPT: ScriptStep[] = [
  // Parallel calls, a kept one before a filtered one: where a `<tool> result:` text goes matters.
  { calls: [{ tool: 'search', input: { q: 'paris' } }, { tool: 'weather', input: { city: 'Paris' } }] },
  { tool: 'search', input: { q: 'rome' } },
  { tool: 'weather', input: { city: 'Rome' } },
  { text: 'Sunny in both.' },
  // turn 2
  { tool: 'weather', input: { city: 'Oslo' } },
  { text: 'Oslo is sunny too.' },
];

function toolsFor(host: Host) {
  const { createTool } = host.tools;
  const { z } = host.zod;
  const weather = createTool({
    id: 'weather',
    description: 'Weather for a city',
    inputSchema: z.object({ city: z.string() }),
    execute: async (input: any) => {
      const city = input.city ?? input.context?.city;
      return { city, forecast: `Sunny in ${city}`, raw: 'FULL_RAW_PAYLOAD' };
    },
    toModelOutput: (output: any) => ({ type: 'text', value: output.forecast }),
  });
  const search = createTool({
    id: 'search',
    description: 'Search the web',
    inputSchema: z.object({ q: z.string() }),
    execute: async () => ({ hits: 3 }),
  });
  return { weather, search };
}

function run(host: Host, processors: () => any[]) {
  return runAgent(host, {
    inputProcessors: processors,
    tools: toolsFor(host),
    script: SCRIPT,
    turns: [HISTORY, 'Thanks, and Oslo?'],
  });
}

const prompts = (result: AgentRunResult) => result.calls.map((call) => call.prompt);

function toolInvocationIds(result: AgentRunResult): string[] {
  return result.stored
    .flatMap((message) => message.parts as any[])
    .filter((part) => part.type === 'tool-invocation')
    .map((part) => part.toolInvocation.toolCallId);
}

function promptToolCallIds(prompt: any): string[] {
  return (prompt as any[]).flatMap((message) =>
    Array.isArray(message.content) ? message.content.filter((p: any) => p.type === 'tool-call').map((p: any) => p.toolCallId) : [],
  );
}

describe.each(HOST_VERSIONS)('ToolCallFilter in a real Agent with memory, host @mastra/core %s', (version) => {
  const host = loadHost(version);
  const HostFilter = host.processors.ToolCallFilter;
  const OurFilter = host.ours.ToolCallFilter;
  const messagesStageHost = host.ourHost.host.capabilities.toolCallFilterStage === 'messages';
  // The same script without any filter, run once per host.
  let unfilteredRun: Promise<AgentRunResult> | undefined;
  const withoutFilter = () => (unfilteredRun ??= run(host, () => []));

  it.each(CONFIGS.map((config) => [JSON.stringify(config), config]))(
    'config %s: same prompts, offered tools, texts, tool results and stored thread as the host’s filter',
    async (_name, config) => {
      const expected = await run(host, () => [new HostFilter(config)]);
      const actual = await run(host, () => [new OurFilter(config)]);
      expect(withoutClock(actual)).toEqual(withoutClock(expected));
      // The run really filtered something: some prompt lacks a tool call the model made before it.
      const unfiltered = await withoutFilter();
      expect(withoutCreatedAt(prompts(expected))).not.toEqual(withoutCreatedAt(prompts(unfiltered)));
      if (config.preserveModelOutput) {
        // Some removed toModelOutput result reached the model as text.
        expect(JSON.stringify(prompts(expected))).toContain('weather result:\\nSunny in Paris');
      }

      if (!messagesStageHost) {
        // 1.60+: the host's filter never touches the MessageList, and neither do we.
        expect(actual.stored).toEqual(unfiltered.stored);
        return;
      }

      // 1.58/1.59: the host's own filter loses stored tool invocations…
      const lost = toolInvocationIds(unfiltered).filter((id) => !toolInvocationIds(expected).includes(id));
      expect(lost.length).toBeGreaterThan(0);
      // …ours with `stage: 'prompt'` sends the very same prompts and loses nothing.
      const promptStage = await run(host, () => [new OurFilter({ ...config, stage: 'prompt' })]);
      expect(withoutCreatedAt(prompts(promptStage))).toEqual(withoutCreatedAt(prompts(expected)));
      expect(promptStage.calls.map((call) => call.tools)).toEqual(expected.calls.map((call) => call.tools));
      expect(promptStage.texts).toEqual(expected.texts);
      expect(promptStage.toolResults).toEqual(expected.toolResults);
      expect(promptStage.stored).toEqual(unfiltered.stored);
      expect(toolInvocationIds(promptStage)).toEqual(expect.arrayContaining(lost));
      // The stored ids it kept are not sent to the model where the host's filter removed them.
      for (let step = 0; step < promptStage.calls.length; step++) {
        expect(promptToolCallIds(promptStage.calls[step].prompt)).toEqual(promptToolCallIds(expected.calls[step].prompt));
      }
    },
  );
});
