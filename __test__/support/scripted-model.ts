// A LanguageModelV2-shaped model that plays a fixed script and records what the agent
// offered (tool names) and sent (the prompt) at each step.
export type ScriptStep = { tool: string; input: unknown } | { text: string };

export function scriptedModel(script: ScriptStep[], log: Array<{ tools: string[]; prompt: unknown }>) {
  let step = 0;
  return {
    specificationVersion: 'v2',
    provider: 'test',
    modelId: 'scripted',
    supportedUrls: {},
    async doGenerate(options: any) {
      log.push({ tools: (options.tools ?? []).map((t: any) => t.name), prompt: options.prompt });
      const next = script[Math.min(step++, script.length - 1)];
      const content =
        'tool' in next
          ? [{ type: 'tool-call', toolCallId: `call-${step}`, toolName: next.tool, input: JSON.stringify(next.input) }]
          : [{ type: 'text', text: next.text }];
      return {
        content,
        warnings: [],
        finishReason: 'tool' in next ? 'tool-calls' : 'stop',
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        response: { id: `r-${step}`, modelId: 'scripted', timestamp: new Date(0) },
      };
    },
    async doStream() {
      throw new Error('use generate() in tests');
    },
  };
}
