// A test as a user would write it: our processor inside a real Mastra Agent with a scripted
// model. The same file runs under Vitest and Jest (see the configs beside it).
import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';
import { ToolSearchProcessor } from 'mastra-native-processors';

const weather = createTool({
  id: 'weather',
  description: 'Get the weather forecast for a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }: { city: string }) => ({ city, forecast: 'sunny' }),
});

// Plays search_tools -> load_tool -> weather -> answer, and records the tools offered each step.
function scriptedModel(offered: string[][]) {
  const script = [
    { tool: 'search_tools', input: { query: 'weather forecast' } },
    { tool: 'load_tool', input: { toolName: 'weather' } },
    { tool: 'weather', input: { city: 'Paris' } },
    { text: 'Sunny in Paris.' },
  ];
  let step = 0;
  return {
    specificationVersion: 'v2' as const,
    provider: 'test',
    modelId: 'scripted',
    supportedUrls: {},
    async doGenerate(options: any) {
      offered.push((options.tools ?? []).map((t: any) => t.name));
      const next: any = script[Math.min(step++, script.length - 1)];
      const content = next.tool
        ? [{ type: 'tool-call', toolCallId: `call-${step}`, toolName: next.tool, input: JSON.stringify(next.input) }]
        : [{ type: 'text', text: next.text }];
      return {
        content,
        warnings: [],
        finishReason: next.tool ? 'tool-calls' : 'stop',
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        response: { id: `r-${step}`, modelId: 'scripted', timestamp: new Date(0) },
      };
    },
    async doStream(): Promise<never> {
      throw new Error('not used');
    },
  };
}

test('the agent searches, loads and uses a tool', async () => {
  const offered: string[][] = [];
  const toolSearch = new ToolSearchProcessor({ tools: { weather } });
  const agent = new Agent({
    id: 'assistant',
    name: 'Assistant',
    instructions: 'Help the user.',
    model: scriptedModel(offered) as any,
    inputProcessors: [toolSearch],
  });
  const result = await agent.generate('Weather in Paris?', { maxSteps: 5 });
  toolSearch.dispose();
  expect(result.text).toBe('Sunny in Paris.');
  expect(offered[0]).toEqual(['search_tools', 'load_tool']);
  expect(offered[2]).toContain('weather');
});
