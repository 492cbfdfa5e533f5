// A LanguageModelV2 that plays a fixed script through doStream (durable agents stream) and
// doGenerate, recording the tool names offered and the prompt at each call. Plain CommonJS so
// child processes (a "restarted" worker) can load it without a TypeScript loader.
'use strict';

function contentOf(next, step, prefix) {
  if ('tool' in next) return [{ type: 'tool-call', toolCallId: `${prefix}${step}`, toolName: next.tool, input: JSON.stringify(next.input) }];
  if ('calls' in next) return next.calls.map((c, k) => ({ type: 'tool-call', toolCallId: `${prefix}${step}-${k}`, toolName: c.tool, input: JSON.stringify(c.input) }));
  return [{ type: 'text', text: next.text }];
}

/**
 * `script`: steps `{ tool, input }`, `{ calls: [...] }` or `{ text }`; `log` receives
 * `{ tools, prompt }` per model call. `start` is the step counter to resume from (a child
 * process continuing a script), `callIdPrefix` names tool calls `<prefix><step>`.
 */
function streamingModel(script, log = [], { callIdPrefix = 'call-', start = 0 } = {}) {
  let step = start;
  const next = (options) => {
    log.push({ tools: (options.tools ?? []).map((t) => t.name), prompt: options.prompt });
    const entry = script[Math.min(step++, script.length - 1)];
    const content = contentOf(entry, step, callIdPrefix);
    const finishReason = 'text' in entry ? 'stop' : 'tool-calls';
    return { content, finishReason };
  };
  const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
  return {
    specificationVersion: 'v2',
    provider: 'test',
    modelId: 'scripted-stream',
    supportedUrls: {},
    async doGenerate(options) {
      const { content, finishReason } = next(options);
      return { content, warnings: [], finishReason, usage, response: { id: `r-${step}`, modelId: 'scripted-stream', timestamp: new Date(0) } };
    },
    async doStream(options) {
      const { content, finishReason } = next(options);
      const parts = [{ type: 'stream-start', warnings: [] }, { type: 'response-metadata', id: `r-${step}`, modelId: 'scripted-stream', timestamp: new Date(0) }];
      for (const c of content) {
        if (c.type === 'text') {
          parts.push({ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: c.text }, { type: 'text-end', id: 't' });
        } else {
          parts.push(c);
        }
      }
      parts.push({ type: 'finish', finishReason, usage });
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const p of parts) controller.enqueue(p);
            controller.close();
          },
        }),
      };
    },
  };
}

module.exports = { streamingModel };
