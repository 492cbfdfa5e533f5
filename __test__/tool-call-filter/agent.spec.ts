// End to end: a real Mastra Agent with a scripted model. The same script runs once with the
// reference ToolCallFilter and once with ours; the prompt the model receives at every step must
// be identical.
import { Agent } from '@mastra/core/agent';
import { ToolCallFilter as ReferenceFilter } from '@mastra/core/processors';
import { createTool } from '@mastra/core/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import { ToolCallFilter } from '../../index.js';
import { scriptedModel, type ModelCall, type ScriptStep } from '../support/scripted-model';
import { clientHistory } from '../support/tool-call-filter-history';

type Step = ScriptStep;

const weather = createTool({
  id: 'weather',
  description: 'Weather for a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }: any) => ({ city, forecast: `Sunny in ${city}`, raw: 'FULL_RAW_PAYLOAD' }),
  toModelOutput: (output: any) => ({ type: 'text', value: output.forecast }),
} as any);

const search = createTool({
  id: 'search',
  description: 'Search',
  inputSchema: z.object({ q: z.string() }),
  execute: async () => ({ hits: 3 }),
} as any);

// A history with earlier tool calls and results, as AI SDK messages.
const history = clientHistory('And Paris, Rome and Oslo?');

const threeToolSteps: Step[] = [
  { tool: 'weather', input: { city: 'Paris' } },
  { tool: 'weather', input: { city: 'Rome' } },
  { tool: 'weather', input: { city: 'Oslo' } },
  { text: 'All sunny.' },
];

async function promptsWith(processor: unknown, script: Step[]) {
  const calls: ModelCall[] = [];
  const agent = new Agent({
    id: 'filtered-agent',
    name: 'filtered-agent',
    instructions: 'You are a helpful assistant',
    model: scriptedModel(script, calls, { callIdPrefix: 'call-weather-' }) as any,
    tools: { weather, search },
    inputProcessors: [processor as any],
  });
  const result = await agent.generate(history as any, { maxSteps: 6 });
  return { log: calls.map((c) => c.prompt), text: result.text };
}

/** The prompts carry wall-clock `createdAt` stamps; everything else must match exactly. */
function withoutClock(log: unknown[]) {
  return JSON.parse(JSON.stringify(log, (key, value) => (key === 'createdAt' ? '<time>' : value)));
}

function toolCallIds(prompt: unknown) {
  return (prompt as any[]).flatMap((message) =>
    Array.isArray(message.content)
      ? message.content.filter((part: any) => part.type === 'tool-call').map((part: any) => part.toolCallId)
      : [],
  );
}

const configurations: Array<[string, () => unknown, () => unknown]> = [
  ['new ToolCallFilter()', () => new ReferenceFilter(), () => new ToolCallFilter()],
  ['exclude: [search]', () => new ReferenceFilter({ exclude: ['search'] }), () => new ToolCallFilter({ exclude: ['search'] })],
  ['preserveModelOutput: true', () => new ReferenceFilter({ preserveModelOutput: true }), () => new ToolCallFilter({ preserveModelOutput: true })],
  ['filterAfterToolSteps: 1', () => new ReferenceFilter({ filterAfterToolSteps: 1 }), () => new ToolCallFilter({ filterAfterToolSteps: 1 })],
  ['filterAfterToolSteps: 2', () => new ReferenceFilter({ filterAfterToolSteps: 2 }), () => new ToolCallFilter({ filterAfterToolSteps: 2 })],
  [
    'filterAfterToolSteps: 1 + preserveModelOutput',
    () => new ReferenceFilter({ filterAfterToolSteps: 1, preserveModelOutput: true }),
    () => new ToolCallFilter({ filterAfterToolSteps: 1, preserveModelOutput: true }),
  ],
];

describe('ToolCallFilter inside a real Agent (scripted model, three tool steps)', () => {
  for (const [name, makeReference, makeOurs] of configurations) {
    it(`${name}: every step's prompt equals the reference's`, async () => {
      const reference = await promptsWith(makeReference(), threeToolSteps);
      const ours = await promptsWith(makeOurs(), threeToolSteps);
      expect(ours.log).toHaveLength(4);
      expect(withoutClock(ours.log)).toEqual(withoutClock(reference.log));
      expect(ours.text).toBe(reference.text);
    });
  }

  it('the default filter strips the history tool calls from the first prompt', async () => {
    const { log } = await promptsWith(new ToolCallFilter(), threeToolSteps);
    expect(toolCallIds(log[0])).toEqual([]);
    expect(JSON.stringify(log[0])).toContain('It is sunny in NYC.');
  });

  it('exclude: [search] keeps the history weather call and drops the search call', async () => {
    const { log } = await promptsWith(new ToolCallFilter({ exclude: ['search'] }), threeToolSteps);
    expect(toolCallIds(log[0])).toEqual(['hist-weather']);
  });

  it('filterAfterToolSteps: 1 and 2 show the expected windows of tool calls', async () => {
    const one = await promptsWith(new ToolCallFilter({ filterAfterToolSteps: 1 }), threeToolSteps);
    expect(one.log.map(toolCallIds)).toEqual([[], ['call-weather-1'], ['call-weather-2'], ['call-weather-3']]);
    const two = await promptsWith(new ToolCallFilter({ filterAfterToolSteps: 2 }), threeToolSteps);
    expect(two.log.map(toolCallIds)).toEqual([
      [],
      ['call-weather-1'],
      ['call-weather-1', 'call-weather-2'],
      ['call-weather-2', 'call-weather-3'],
    ]);
  });

  it('preserveModelOutput + window 1: older weather results reach the model as compact text', async () => {
    const { log } = await promptsWith(new ToolCallFilter({ filterAfterToolSteps: 1, preserveModelOutput: true }), threeToolSteps);
    const last = JSON.stringify(log[3]);
    expect(last).toContain('weather result:\\nSunny in Paris');
    expect(last).not.toContain('FULL_RAW_PAYLOAD","city":"Paris');
  });
});
