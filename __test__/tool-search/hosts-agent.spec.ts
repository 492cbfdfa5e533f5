// ToolSearchProcessor end to end on every host of the matrix: a real Agent of that host with a
// scripted model and LibSQL memory runs two turns on one thread, once with the host's own
// processor and once with ours. What the model is offered and sent at every step, the texts,
// the tool results and the stored thread must be identical.
import { describe, expect, it } from 'vitest';

import { runAgent, stable, type AgentRunResult } from '../support/agent-run';
import { HOST_VERSIONS, loadHost, type Host } from '../support/hosts';
import type { ScriptStep } from '../support/scripted-model';
import { weatherToolsFor } from '../support/weather-tools';

const NEWEST = HOST_VERSIONS[HOST_VERSIONS.length - 1];

// A long get_weather description: the prompt's tool listing is long enough to matter.
const toolsFor = (host: Host, executed: string[]) => weatherToolsFor(host, executed, 'Get the current weather for a city. '.repeat(6));

async function runWith(host: Host, which: 'host' | 'ours', options: Record<string, unknown>, script: ScriptStep[], hostFor = host) {
  const executed: string[] = [];
  const P = which === 'host' ? hostFor.processors.ToolSearchProcessor : hostFor.ours.ToolSearchProcessor;
  const run = await runAgent(hostFor, {
    inputProcessors: () => [new P({ tools: toolsFor(hostFor, executed), ...options })],
    script,
    turns: ['What is the weather in Paris?', 'And again, please.'],
  });
  return { ...run, executed };
}

function expectSameRun(ours: AgentRunResult & { executed: string[] }, ref: AgentRunResult & { executed: string[] }) {
  expect(ours.calls.map((c) => c.tools)).toEqual(ref.calls.map((c) => c.tools));
  expect(stable(ours.calls.map((c) => c.toolDefs))).toEqual(stable(ref.calls.map((c) => c.toolDefs)));
  expect(ours.calls.map((c) => stable(c.prompt))).toEqual(ref.calls.map((c) => stable(c.prompt)));
  expect(ours.texts).toEqual(ref.texts);
  expect(stable(ours.toolResults)).toEqual(stable(ref.toolResults));
  expect(stable(ours.stored)).toEqual(stable(ref.stored));
  expect(ours.executed).toEqual(ref.executed);
}

/** The system messages of a model call's prompt. */
const systemTexts = (call: { prompt: unknown }) =>
  (call.prompt as any[]).filter((m) => m.role === 'system').map((m) => m.content as string);

describe.each(HOST_VERSIONS)('ToolSearchProcessor in a real Agent on host @mastra/core %s', (version) => {
  const host = loadHost(version);
  const caps = host.ourHost.host.capabilities;

  // search -> load -> use, then the next turn uses the (still loaded) tool directly
  const searchLoadUse: ScriptStep[] = [
    { tool: 'search_tools', input: { query: 'weather city' } },
    { tool: 'load_tool', input: { toolName: 'get_weather' } },
    { tool: 'get_weather', input: { city: 'Paris' } },
    { text: 'It is sunny in Paris.' },
    { tool: 'get_weather', input: { city: 'Paris' } },
    { text: 'Still sunny.' },
  ];
  // load (multi form: every host's context store reads it) -> use; next turn uses it again
  const loadUse: ScriptStep[] = [
    { tool: 'load_tool', input: { toolNames: ['get_weather'] } },
    { tool: 'get_weather', input: { city: 'Paris' } },
    { text: 'It is sunny in Paris.' },
    { tool: 'get_weather', input: { city: 'Paris' } },
    { text: 'Still sunny.' },
  ];

  it('in-memory storage: search -> load -> use over two turns', async () => {
    const ref = await runWith(host, 'host', {}, searchLoadUse);
    const ours = await runWith(host, 'ours', {}, searchLoadUse);
    expectSameRun(ours, ref);
    expect(ours.executed).toEqual(['Paris', 'Paris']);
    expect(ours.calls[2].tools).toEqual(['search_tools', 'load_tool', 'get_weather']);
  });

  it("context storage: load -> use, and the next turn's history keeps the tool loaded", async () => {
    const ref = await runWith(host, 'host', { storage: 'context' }, loadUse);
    const ours = await runWith(host, 'ours', { storage: 'context' }, loadUse);
    expectSameRun(ours, ref);
    expect(ours.executed).toEqual(['Paris', 'Paris']);
    expect(ours.calls[3].tools).toContain('get_weather');
  });

  it('context storage, single-form load: as the host on 1.60+; 1.58/1.59 hosts miss it on the next turn (difference 4)', async () => {
    const single: ScriptStep[] = [{ tool: 'load_tool', input: { toolName: 'get_weather' } }, ...loadUse.slice(1)];
    const ref = await runWith(host, 'host', { storage: 'context' }, single);
    const ours = await runWith(host, 'ours', { storage: 'context' }, single);
    expect(ours.executed).toEqual(['Paris', 'Paris']);
    if (caps.toolSearchContextSingleLoad) expectSameRun(ours, ref);
    else {
      // The host's same-process set carries the load through turn 1; turn 2 reads only the
      // history, where it does not recognise the single form.
      expect(ref.calls[3].tools).not.toContain('get_weather');
      expect(ours.calls[3].tools).toContain('get_weather');
    }
  });

  for (const autoLoad of [false, true]) {
    it(`injectCatalog (autoLoad ${autoLoad}): load or search -> use with the catalog in the system prompt`, async () => {
      const script: ScriptStep[] = autoLoad
        ? [{ tool: 'search_tools', input: { query: 'weather' } }, ...loadUse.slice(1)]
        : loadUse;
      for (const storage of ['in-memory', 'context']) {
        const options = { injectCatalog: true, search: { autoLoad, topK: 2 }, storage };
        const ours = await runWith(host, 'ours', options, script);
        expect(ours.executed).toEqual(['Paris', 'Paris']);
        const catalogMessage = systemTexts(ours.calls[0]).find((t) => t.includes('\n\nAvailable tools:\n'));
        expect(catalogMessage).toContain('- `get_weather`: ' + 'Get the current weather for a city. '.repeat(6).slice(0, 147) + '...');
        if (caps.injectCatalog) {
          const ref = await runWith(host, 'host', options, script);
          if (storage === 'context' && autoLoad) {
            // our autoLoad search result carries the activation receipt (difference 4)
            expect(ours.calls.map((c) => c.tools)).toEqual(ref.calls.map((c) => c.tools));
            expect(ours.calls.map((c) => systemTexts(c))).toEqual(ref.calls.map((c) => systemTexts(c)));
          } else {
            expectSameRun(ours, ref);
          }
        } else {
          // The host has no such option; the newest host's Agent shows the same catalog text.
          const newest = loadHost(NEWEST);
          const ref = await runWith(newest, 'host', options, script, newest);
          expect(systemTexts(ours.calls[0]).slice(-2)).toEqual(systemTexts(ref.calls[0]).slice(-2));
          expect(ours.calls.map((c) => c.tools)).toEqual(ref.calls.map((c) => c.tools));
        }
      }
    });
  }
});
