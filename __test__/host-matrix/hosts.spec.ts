// The host matrix itself: every host folder holds the @mastra/core it is named after, our
// staged package loads from it, and our capability table answers for that host.
import { describe, expect, it } from 'vitest';

import { runAgent } from '../support/agent-run';
import { HOST_VERSIONS, loadHost } from '../support/hosts';

describe.each(HOST_VERSIONS)('host @mastra/core %s', (version) => {
  const host = loadHost(version);

  it('our package sees this host', () => {
    expect(host.ourHost.host.version).toBe(version);
    expect(typeof host.ours.ToolSearchProcessor).toBe('function');
  });

  it('a real Agent with LibSQL memory stores both turns of a thread', async () => {
    const { createTool } = host.tools;
    const { z } = host.zod;
    const weather = createTool({
      id: 'weather',
      description: 'Weather for a city',
      inputSchema: z.object({ city: z.string() }),
      execute: async (input: any) => ({ city: input.city ?? input.context?.city, forecast: 'sunny' }),
    });
    const run = await runAgent(host, {
      inputProcessors: () => [],
      tools: { weather },
      script: [{ tool: 'weather', input: { city: 'Paris' } }, { text: 'It is sunny.' }, { text: 'Bye.' }],
      turns: ['Weather in Paris?', 'Thanks'],
    });
    expect(run.texts).toEqual(['It is sunny.', 'Bye.']);
    expect(run.toolResults[0].map((r) => r.toolName)).toEqual(['weather']);
    const roles = run.stored.map((m) => m.role);
    expect(roles.filter((r) => r === 'user')).toHaveLength(2);
    const toolParts = run.stored.flatMap((m) => m.parts).filter((p: any) => p.type === 'tool-invocation');
    expect(toolParts.length).toBeGreaterThan(0);
  });
});
