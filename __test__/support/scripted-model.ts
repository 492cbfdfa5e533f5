// A LanguageModelV2-shaped model that plays a fixed script and records, at each step, what the
// agent offered (tool names and definitions) and sent (the prompt).
export type ScriptStep =
  | { tool: string; input: unknown }
  | { text: string }
  /** Several tool calls in one step (parallel calls), ids `<prefix><step>-<k>`. */
  | { calls: Array<{ tool: string; input: unknown }> };
export type ModelCall = { tools: string[]; toolDefs: unknown[]; prompt: unknown };

export function scriptedModel(script: ScriptStep[], log: ModelCall[], { callIdPrefix = 'call-' } = {}) {
  let step = 0;
  return {
    specificationVersion: 'v2' as const,
    provider: 'test',
    modelId: 'scripted',
    supportedUrls: {},
    async doGenerate(options: any) {
      log.push({ tools: (options.tools ?? []).map((t: any) => t.name), toolDefs: options.tools ?? [], prompt: options.prompt });
      const next = script[Math.min(step++, script.length - 1)];
      const content =
        'tool' in next
          ? [{ type: 'tool-call', toolCallId: `${callIdPrefix}${step}`, toolName: next.tool, input: JSON.stringify(next.input) }]
          : 'calls' in next
            ? next.calls.map((call, k) => ({ type: 'tool-call', toolCallId: `${callIdPrefix}${step}-${k}`, toolName: call.tool, input: JSON.stringify(call.input) }))
            : [{ type: 'text', text: next.text }];
      return {
        content,
        warnings: [],
        finishReason: 'tool' in next || 'calls' in next ? 'tool-calls' : 'stop',
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        response: { id: `r-${step}`, modelId: 'scripted', timestamp: new Date(0) },
      };
    },
    async doStream(): Promise<never> {
      throw new Error('use generate() in tests');
    },
  };
}
